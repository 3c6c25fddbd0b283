# syntax=docker/dockerfile:1
# crawl-decoder's container image: `crawl-decoder run`, the Kafka stream processor.
#
#   docker build -t crawl-decoder:0.1.0 .
#   docker run --rm -e KAFKA_BOOTSTRAP_SERVERS=broker:9092 crawl-decoder:0.1.0
#
# Two stages: the builder turns the project into a wheel and installs it into a
# virtual environment; the runtime stage copies only that venv and the Avro
# schemas. Both stages use the same base image so the venv's interpreter path
# (/usr/local/bin/python) exists in the runtime stage too.

ARG PYTHON_IMAGE=python:3.12-slim-bookworm

FROM ${PYTHON_IMAGE} AS builder
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
# gcc compiles the meta prescan's loop, the UTF-8 check, the CJK decoders and UTF-16's shortcut
# (consumer/decoding/_prescan_loop.c, consumer/decoding/codecs/_utf8_validity.c,
# consumer/decoding/codecs/_multibyte.c, consumer/decoding/codecs/_utf16_bmp.c) into the
# project's wheel; the extensions are optional, so without them the image would work, its
# decoding slower (legacy CJK pages up to 100x). Only this stage has a compiler: the runtime
# stage copies the built venv.
RUN apt-get update \
 && apt-get install --yes --no-install-recommends gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/venv
WORKDIR /src
# pyproject.toml names README.md as the package's readme: the build needs it.
COPY pyproject.toml README.md ./
COPY consumer/ ./consumer/
# The dependencies (confluent-kafka, fastavro...) ship manylinux wheels for this
# Python: --only-binary keeps it that way, so a missing wheel fails the build here
# instead of compiling a dependency from source.
RUN python -m pip wheel --no-deps --wheel-dir /wheels . \
 && /opt/venv/bin/pip install --only-binary=:all: /wheels/*.whl \
 && /opt/venv/bin/pip uninstall --yes pip

FROM ${PYTHON_IMAGE} AS runtime
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    CRAWL_DECODER_SCHEMAS_DIR=/app/schemas
# A fixed numeric UID/GID, so Kubernetes' runAsNonRoot can verify it without
# looking the name up in the image's /etc/passwd.
RUN groupadd --system --gid 10001 crawl \
 && useradd --system --uid 10001 --gid 10001 --no-create-home \
      --home-dir /nonexistent --shell /usr/sbin/nologin crawl
COPY --from=builder /opt/venv /opt/venv
COPY schemas/ /app/schemas/
WORKDIR /app
USER 10001:10001
# The processor's http_port: /metrics, /healthz, /readyz.
EXPOSE 9102
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:9102/healthz', timeout=4)"]
ENTRYPOINT ["crawl-decoder"]
CMD ["run"]
