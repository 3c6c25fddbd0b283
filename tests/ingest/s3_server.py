"""An S3-compatible server on loopback: moto's server mode in a child process, enforcing signatures.

Set up unauthenticated (a bucket, an IAM user allowed to read it, that user's access key), then moto
is told to authenticate every request from then on (``/moto-api/reset-auth``): a request signed with
another secret is refused with 403 SignatureDoesNotMatch, as S3 refuses it.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import boto3

READ_POLICY = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket"], "Resource": "*"}],
}


@dataclass(frozen=True)
class S3Server:
    endpoint: str
    access_key: str
    secret_key: str
    #: A client with the full rights of moto's default account (to put objects after auth is on).
    admin: object

    def env(self, *, secret: str | None = None) -> dict[str, str]:
        """The variables `crawl-decoder ingest` reads to reach this server with the reader's key."""
        return {
            "AWS_ENDPOINT_URL_S3": self.endpoint, "AWS_ACCESS_KEY_ID": self.access_key,
            "AWS_SECRET_ACCESS_KEY": secret if secret is not None else self.secret_key, "AWS_REGION": "us-east-1",
        }  # fmt: skip


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_ready(endpoint: str, process: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=5):
                return
        except (urllib.error.URLError, ConnectionError):
            if process.poll() is not None or time.monotonic() >= deadline:
                raise RuntimeError(f"moto server not answering at {endpoint}") from None
            time.sleep(0.1)  # polling a real condition, bounded by the deadline


@contextmanager
def moto_s3(bucket: str, objects: dict[str, bytes]) -> Iterator[S3Server]:
    """moto's server with *bucket* holding *objects*, readable by one IAM user's key (see the module docstring)."""
    port = _free_port()
    endpoint = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        _wait_ready(endpoint, process)
        setup = {"endpoint_url": endpoint, "region_name": "us-east-1",
                 "aws_access_key_id": "setup", "aws_secret_access_key": "setup"}  # fmt: skip
        iam = boto3.client("iam", **setup)
        iam.create_user(UserName="reader")
        iam.put_user_policy(UserName="reader", PolicyName="read", PolicyDocument=json.dumps(READ_POLICY))
        key = iam.create_access_key(UserName="reader")["AccessKey"]
        iam.create_user(UserName="admin")
        iam.put_user_policy(UserName="admin", PolicyName="all", PolicyDocument=json.dumps({
            "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}],
        }))  # fmt: skip
        admin_key = iam.create_access_key(UserName="admin")["AccessKey"]
        s3 = boto3.client("s3", **setup)
        s3.create_bucket(Bucket=bucket)
        for name, data in objects.items():
            s3.put_object(Bucket=bucket, Key=name, Body=data)
        # From here on every request is authenticated and authorised.
        request = urllib.request.Request(
            f"{endpoint}/moto-api/reset-auth", data=b"0", method="POST", headers={"Content-Type": "text/plain"}
        )
        with urllib.request.urlopen(request, timeout=30):
            pass
        admin = boto3.client(
            "s3", endpoint_url=endpoint, region_name="us-east-1",
            aws_access_key_id=admin_key["AccessKeyId"], aws_secret_access_key=admin_key["SecretAccessKey"],
        )  # fmt: skip
        yield S3Server(endpoint, key["AccessKeyId"], key["SecretAccessKey"], admin)
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(30)
