"""The test S3 server (issue 34), for every test that puts a warehouse on object storage.

`with S3Server() as s3:` starts s3rver (npm, pinned in package.json, installed on demand with
node and npm from Debian) on a loopback port with the bucket `tb`, and in front of it
conditional_proxy.js, which answers `If-None-Match: *` as AWS S3 does and logs every request.
A second bucket, `tb2`, is there too.

- `s3.env()`: the environment a tributary process needs (AWS_* variables) to reach the store
  through the proxy (S3's behaviour); `s3.env(direct=True)` reaches s3rver itself, a store that
  ignores conditional writes.
- `s3.requests()`: the requests the proxy answered since the last `s3.clear_requests()`, as
  (method, path, query, status) tuples (read once the proxy's log stopped growing: it logs a
  request just after answering it).
- `s3.lose_next_answer(key_part)`: a fault: the next conditional PUT of such a key is stored
  and answered 503.
- `s3.object_keys(prefix)`: the keys in the bucket under `prefix`, read from s3rver's store;
  `s3.object_keys_under(uri)` and `s3.object_size(uri)` take `s3://bucket/key` URIs.
Python 3 standard library only.
"""
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse

DIR = os.path.dirname(os.path.abspath(__file__))
BUCKET = "tb"
OTHER_BUCKET = "tb2"  # a second bucket, for two warehouses in one process


def ensure_s3rver():
    binary = os.path.join(DIR, "node_modules", ".bin", "s3rver")
    if os.path.exists(binary):
        return binary
    if shutil.which("npm") is None:
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True)
        subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "nodejs", "npm"], check=True,
                       env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    subprocess.run(["npm", "ci", "--silent", "--no-audit", "--no-fund"], cwd=DIR, check=True,
                   timeout=600)
    return binary


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class S3Server:
    def __init__(self):
        self.tmp = None
        self.server = None
        self.proxy = None

    def __enter__(self):
        s3rver = ensure_s3rver()
        self.tmp = tempfile.mkdtemp(prefix="tributary-s3-")
        self.data = os.path.join(self.tmp, "data")
        self.log_path = os.path.join(self.tmp, "requests.log")
        self.proxy_log = os.path.join(self.tmp, "proxy.log")
        self.lose_answer_path = os.path.join(self.tmp, "lose-answer")
        self.port = free_port()
        # s3rver's continuation tokens use a cipher OpenSSL 3 disables by default.
        # s3rver's own errors (a crash) go to a log that a failing test prints (proxy_said).
        self.server_log = os.path.join(self.tmp, "s3rver.log")
        with open(self.server_log, "w") as log:
            self.server = subprocess.Popen(
                [s3rver, "-d", self.data, "-p", str(self.port), "-a", "127.0.0.1",
                 "--configure-bucket", BUCKET, "--configure-bucket", OTHER_BUCKET, "--silent"],
                env=dict(os.environ, NODE_OPTIONS="--openssl-legacy-provider"),
                stdout=subprocess.DEVNULL, stderr=log)
        self.proxy_port = free_port()
        with open(self.proxy_log, "w") as log:
            self.proxy = subprocess.Popen(
                ["node", os.path.join(DIR, "conditional_proxy.js"), str(self.proxy_port),
                 str(self.port), self.data, self.log_path, self.lose_answer_path],
                stdout=subprocess.DEVNULL, stderr=log)
        for p in (self.port, self.proxy_port):
            deadline = time.time() + 30
            while True:
                try:
                    socket.create_connection(("127.0.0.1", p), timeout=1).close()
                    break
                except OSError:
                    if time.time() > deadline:
                        self.__exit__(None, None, None)
                        raise RuntimeError("s3rver or its proxy did not start")
                    time.sleep(0.1)
        return self

    def __exit__(self, *exc):
        for p in (self.proxy, self.server):
            if p is not None and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)
        return False

    def lose_next_answer(self, key_part):
        """The next conditional PUT of a key containing `key_part` is stored, then answered 503
        (the client retries a write that happened)."""
        with open(self.lose_answer_path, "w") as f:
            f.write(key_part)

    def endpoint(self, direct=False):
        return "http://127.0.0.1:%d" % (self.port if direct else self.proxy_port)

    def env(self, direct=False, base=None):
        env = dict(os.environ if base is None else base)
        for k in ("AWS_SESSION_TOKEN", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
            env.pop(k, None)
        env.update(AWS_ENDPOINT_URL=self.endpoint(direct), AWS_ACCESS_KEY_ID="S3RVER",
                   AWS_SECRET_ACCESS_KEY="S3RVER", AWS_REGION="us-east-1")
        return env

    def proxy_said(self):
        """What the proxy wrote on stderr, and whether it exited (for a failure message)."""
        with open(self.proxy_log) as f:
            said = f.read()[-800:]
        if self.proxy.poll() is not None:
            said = "(exited %s) %s" % (self.proxy.returncode, said)
        with open(self.server_log) as f:
            server_said = f.read()[-1500:]
        if self.server.poll() is not None or server_said:
            said += "\n  s3rver %s: %s" % (
                "exited %s" % self.server.returncode if self.server.poll() is not None
                else "is running", server_said)
        return said

    def clear_requests(self):
        open(self.log_path, "w").close()

    def requests(self):
        if not os.path.exists(self.log_path):
            return []
        # The proxy logs a request once its response is sent, so the last line may land a
        # moment after the client has it: read once the log stopped growing (at most 2 s).
        size, deadline = -1, time.time() + 2
        while time.time() < deadline:
            now = os.path.getsize(self.log_path)
            if now == size:
                break
            size = now
            time.sleep(0.1)
        out = []
        with open(self.log_path) as f:
            for line in f:
                parts = line.split()
                if len(parts) != 3:
                    continue
                url = urllib.parse.urlsplit(parts[1])
                out.append((parts[0], urllib.parse.unquote(url.path), url.query, int(parts[2])))
        return out

    def object_keys(self, prefix=""):
        """Keys in the bucket under `prefix`, from s3rver's files on disk."""
        return [k for k in self.object_keys_in(BUCKET) if k.startswith(prefix)]

    def _split(self, uri):
        parsed = urllib.parse.urlsplit(uri)
        if parsed.scheme not in ("s3", "s3a", "s3n"):
            raise ValueError("not an s3:// URI: %r" % uri)
        return parsed.netloc, parsed.path.strip("/")

    def object_size(self, uri):
        """The size of object `uri` (s3://bucket/key), None when there is none."""
        bucket, key = self._split(uri)
        path = os.path.join(self.data, bucket, key) + "._S3rver_object"
        return os.path.getsize(path) if os.path.isfile(path) else None

    def object_keys_under(self, uri):
        """Every key below the "directory" `uri` (s3://bucket/prefix), at any depth."""
        bucket, prefix = self._split(uri)
        prefix = prefix + "/" if prefix else ""
        return [k for k in self.object_keys_in(bucket) if k.startswith(prefix)]

    def object_keys_in(self, bucket):
        """Every key in `bucket`, from s3rver's files on disk."""
        root = os.path.join(self.data, bucket)
        suffix = "._S3rver_object"
        keys = []
        for d, _, files in os.walk(root):
            for f in files:
                if f.endswith(suffix):
                    keys.append(os.path.relpath(os.path.join(d, f[:-len(suffix)]), root))
        return sorted(keys)
