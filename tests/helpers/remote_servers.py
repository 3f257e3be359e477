"""Real DVC remote servers on 127.0.0.1, started and stopped by the tests.

``s3_server``: moto's S3 API in server mode (``python -m moto.server``, a process of its own),
with one bucket. ``ssh_server``: the OS's OpenSSH daemon (``/usr/sbin/sshd``, Debian's
openssh-server) run in the foreground on a free port, with a host key and a user key generated
for the test; the user is whoever runs the tests. Without sshd the SSH tests skip and say how to
install it; ``.ci/run`` installs it first, so CI always runs them.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SSHD_CANDIDATES = ("/usr/sbin/sshd", "sshd")
SSHD_HINT = "no sshd found: `apt-get install openssh-server` (or set SIDEWAYS_SSHD=/path/to/sshd)"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen, log: Path, timeout: float = 30.0) -> None:
    """Return once something accepts connections on ``port``; fail with the server's log if it died."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited ({proc.returncode}):\n{log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout} s:\n{log.read_text()}")


@contextmanager
def serving(cmd: list[str], port: int, log: Path, env: dict[str, str] | None = None) -> Iterator[None]:
    """``cmd`` as a process for the duration of the block (its output in ``log``), then stopped."""
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    try:
        wait_for_port(port, proc, log)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass(frozen=True)
class S3:
    endpoint: str
    bucket: str
    access_key_id: str
    secret_access_key: str


@contextmanager
def s3_server(workdir: Path, bucket: str = "bucket") -> Iterator[S3]:
    """moto's S3 server on a free port: ``bucket``, and an IAM user allowed S3 whose key is the only
    way in (moto checks credentials once ``/moto-api/reset-auth`` says so: a wrong key gets 403)."""
    import urllib.request

    import boto3

    port = free_port()
    workdir.mkdir(parents=True, exist_ok=True)
    with serving([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)], port,
                 workdir / "moto.log"):
        endpoint = f"http://127.0.0.1:{port}"
        admin = {"endpoint_url": endpoint, "region_name": "us-east-1",
                 "aws_access_key_id": "setup", "aws_secret_access_key": "setup"}
        iam = boto3.client("iam", **admin)
        iam.create_user(UserName="sideways")
        iam.put_user_policy(UserName="sideways", PolicyName="s3", PolicyDocument=(
            '{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}'))
        key = iam.create_access_key(UserName="sideways")["AccessKey"]
        boto3.client("s3", **admin).create_bucket(Bucket=bucket)
        urllib.request.urlopen(urllib.request.Request(f"{endpoint}/moto-api/reset-auth", data=b"0",
                                                      headers={"Content-Type": "text/plain"}), timeout=10)
        yield S3(endpoint, bucket, key["AccessKeyId"], key["SecretAccessKey"])


def find_sshd() -> str | None:
    named = os.environ.get("SIDEWAYS_SSHD")
    if named:
        return named if os.access(named, os.X_OK) else None
    for name in SSHD_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass(frozen=True)
class SSH:
    user: str
    port: int
    keyfile: Path  # the user's private key (its public half is the only authorized key)

    def url(self, path: Path) -> str:
        return f"ssh://{self.user}@127.0.0.1:{self.port}{path}"


def keygen(path: Path) -> Path:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "sideways-test", "-f", str(path)], check=True)
    return path


@contextmanager
def ssh_server(workdir: Path, sshd: str) -> Iterator[SSH]:
    """``sshd -D`` on a free port of 127.0.0.1: key logins only, for the user running the tests.

    As root, sshd wants its privilege separation directory (``/run/sshd``, which the Debian
    service creates at boot); it is created when missing."""
    workdir.mkdir(parents=True, exist_ok=True)
    host_key, user_key = keygen(workdir / "host_key"), keygen(workdir / "user_key")
    authorized = workdir / "authorized_keys"
    shutil.copy(user_key.with_suffix(".pub"), authorized)
    port = free_port()
    config = workdir / "sshd_config"
    config.write_text("\n".join([
        f"Port {port}", "ListenAddress 127.0.0.1", f"HostKey {host_key}", f"AuthorizedKeysFile {authorized}",
        "PasswordAuthentication no", "KbdInteractiveAuthentication no", "UsePAM no",
        # the keys live in pytest's tmp folder, whose modes StrictModes would refuse
        "StrictModes no", "PermitRootLogin prohibit-password", "PidFile none", "Subsystem sftp internal-sftp",
        "",
    ]))
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
    user = pwd.getpwuid(os.geteuid()).pw_name
    with serving([sshd, "-D", "-e", "-f", str(config)], port, workdir / "sshd.log"):
        yield SSH(user, port, user_key)
