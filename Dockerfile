# syntax=docker/dockerfile:1
# crawl-decoder's container image: `crawl-decoder run`, the Kafka stream processor.
#
#   docker build -t crawl-decoder:0.1.0 \
#     --build-arg REVISION="$(git rev-parse HEAD)" \
#     --build-arg CREATED="$(date -u +%Y-%m-%dT%H:%M:%SZ)" .
#   docker run --rm -e KAFKA_BOOTSTRAP_SERVERS=broker:9092 crawl-decoder:0.1.0
#
# Three stages. `requirements` reads the runtime dependencies out of pyproject.toml;
# the builder installs them into a virtual environment at the versions constraints.txt
# pins, then builds the project's wheel (with its C extensions, its Avro schemas and example
# overrides inside the package) and installs it without resolving again; the runtime stage
# copies only that venv. The dependency
# layer depends on the dependency list and constraints.txt alone, so an edit to
# consumer/ (or to pyproject.toml outside [project] dependencies) rebuilds only the
# project's own layer. All stages use the same base image so the venv's interpreter
# path (/usr/local/bin/python) exists in the runtime stage too.

ARG PYTHON_IMAGE=python:3.12-slim-bookworm

FROM ${PYTHON_IMAGE} AS requirements
WORKDIR /src
COPY pyproject.toml ./
# BuildKit keys a COPY --from on the copied file's content: while this list is
# unchanged, the builder's dependency layer is reused whatever else pyproject.toml says.
RUN python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'], sep='\n')" \
      > requirements.txt

FROM ${PYTHON_IMAGE} AS builder
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
# gcc compiles the C extensions of consumer/decoding/_native/ (the meta prescan's loop, UTF-8, UTF-16, the
# single-byte and CJK decoders, the mojibake scan, detection's loops) into the project's wheel; the extensions are optional, so without them the image would work, its
# decoding slower (legacy CJK pages up to 100x). Only this stage has a compiler: the runtime
# stage copies the built venv.
RUN apt-get update \
 && apt-get install --yes --no-install-recommends gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/venv
WORKDIR /src
# The dependencies first, in a layer of their own. constraints.txt pins the whole
# closure (how to regenerate it: its header). They (confluent-kafka, fastavro...)
# ship manylinux wheels for this Python: --only-binary keeps it that way, so a
# missing wheel fails the build here instead of compiling a dependency from source.
COPY constraints.txt ./
COPY --from=requirements /src/requirements.txt ./
RUN /opt/venv/bin/pip install --only-binary=:all: -r requirements.txt -c constraints.txt
# Then the project. pyproject.toml names README.md as the package's readme; setup.py copies
# schemas/ and config/overrides.yaml into the wheel's package (consumer/schemas, consumer/config).
COPY pyproject.toml setup.py MANIFEST.in README.md CHANGELOG.md ./
COPY schemas/ ./schemas/
COPY config/overrides.yaml ./config/
COPY consumer/ ./consumer/
# --no-deps: the dependencies are in the venv already, nothing is resolved again.
# `pip check` then fails the build if anything in the venv lacks a requirement.
# (A dependency added to pyproject.toml but not pinned in constraints.txt would be
# installed unpinned: tests/deploy/test_constraints.py catches that before a build.)
RUN python -m pip wheel --no-deps --wheel-dir /wheels . \
 && /opt/venv/bin/pip install --no-deps /wheels/*.whl \
 && /opt/venv/bin/pip check \
 && /opt/venv/bin/pip uninstall --yes pip

FROM ${PYTHON_IMAGE} AS runtime
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
# A fixed numeric UID/GID, so Kubernetes' runAsNonRoot can verify it without
# looking the name up in the image's /etc/passwd.
RUN groupadd --system --gid 10001 crawl \
 && useradd --system --uid 10001 --gid 10001 --no-create-home \
      --home-dir /nonexistent --shell /usr/sbin/nologin crawl
COPY --from=builder /opt/venv /opt/venv
WORKDIR /app
USER 10001:10001
# The processor's http_port (default 9102): /metrics, /healthz, /readyz.
EXPOSE 9102
# Probes the port the processor serves: CRAWL_DECODER_HTTP_PORT when the container
# sets it, else the default, read by the shell at each check (shell form on purpose;
# python's urllib because the slim base has no curl). A port set only in the config
# file (http_port in the YAML) is not seen here: set CRAWL_DECODER_HTTP_PORT too, or
# the check fails. Kubernetes ignores HEALTHCHECK and uses the chart's probes.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:${CRAWL_DECODER_HTTP_PORT:-9102}/healthz', timeout=4)"
ENTRYPOINT ["crawl-decoder"]
CMD ["run"]
# OCI annotations, last so that a new REVISION or CREATED rebuilds no layer above.
# VERSION follows consumer/__init__.py's __version__ (tests/deploy checks the default);
# SOURCE is the repository's URL, passed at build time like REVISION and CREATED.
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
ARG SOURCE=
LABEL org.opencontainers.image.title="crawl-decoder" \
      org.opencontainers.image.description="Decode crawled HTTP response bodies the way browsers do, once, in a Kafka stream processor." \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.source="${SOURCE}"
