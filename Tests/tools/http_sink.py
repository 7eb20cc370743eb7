#!/usr/bin/python3
"""A local HTTP server for the action tests: records every request (method, path,
headers, body) as a JSON line, and answers 500 to the first --fail-first requests,
then 201. Listens on 127.0.0.1 on a free port, written to --port-file once ready."""
import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--log", required=True)
ap.add_argument("--port-file", required=True)
ap.add_argument("--fail-first", type=int, default=0)
args = ap.parse_args()

lock = threading.Lock()
count = 0


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        global count
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        with lock:
            count += 1
            status = 500 if count <= args.fail_first else 201
            with open(args.log, "a", encoding="utf-8") as f:
                f.write(json.dumps({"n": count, "status": status, "method": "POST", "path": self.path,
                                    "headers": {k: v for k, v in self.headers.items()},
                                    "body": body.decode("utf-8", "replace")}, ensure_ascii=False) + "\n")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        out = b'{"id":"1"}' if status == 201 else b'{"message":"try later"}'
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *a):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(args.port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os
os.rename(args.port_file + ".tmp", args.port_file)
try:
    server.serve_forever()
except KeyboardInterrupt:
    pass
