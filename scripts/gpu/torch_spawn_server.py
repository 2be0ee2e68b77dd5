#!/usr/bin/env python3
"""A small OpenAI-compatible completions server whose model runs in a SPAWNED
process, as vLLM and SGLang run their engines: the HTTP process never touches
CUDA, so every kernel in a recording of it comes from the child. For
serve-join-check.sh (bench serve --server must follow the spawned process).

The engine (multiprocessing "spawn": a fresh interpreter, injected afresh by
CUDA_INJECTION64_PATH) runs a stack of fp16 matmuls per step for every active
request, under an NVTX range `engine.step`, and marks `emit:SEQ:INDEX` the
instant each token leaves it (SEQ counts requests in arrival order, the
warm-up included). The HTTP side streams one SSE chunk per token, then usage
and [DONE].

--engine sleep replaces the GPU step with a sleep (no torch): only to try the
HTTP side on a machine without a GPU.
"""
import argparse
import json
import multiprocessing as mp
import queue
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def engine_main(kind, hidden, layers, requests, outputs, ready):
    # The HTTP process stops the engine with a sentinel; SIGINT from the
    # recorder reaches the whole process group and must not cut it short.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    step, mark, range_push, range_pop = time_step(kind, hidden, layers)
    ready.set()
    active = {}  # seq -> [tokens left, next index]
    while True:
        try:
            item = requests.get(block=not active)
        except queue.Empty:
            item = ()
        while item != ():
            if item is None:
                return
            seq, n = item
            active[seq] = [n, 0]
            try:
                item = requests.get_nowait()
            except queue.Empty:
                item = ()
        range_push("engine.step")
        step(len(active))
        range_pop()
        for seq in list(active):
            left, index = active[seq]
            mark(f"emit:{seq}:{index}")
            outputs.put((seq, index, left == 1))
            if left == 1:
                del active[seq]
            else:
                active[seq] = [left - 1, index + 1]


def time_step(kind, hidden, layers):
    if kind == "sleep":
        def nothing(*_):
            pass
        return (lambda batch: time.sleep(0.002)), nothing, nothing, nothing
    import torch
    torch.manual_seed(0)
    dev = torch.device("cuda")
    weights = [torch.randn(hidden, hidden, device=dev, dtype=torch.float16) / hidden ** 0.5
               for _ in range(layers)]
    x = torch.randn(1, hidden, device=dev, dtype=torch.float16)

    def step(batch):
        h = x.expand(batch, hidden).contiguous()
        for w in weights:
            h = torch.relu(h @ w)
        torch.cuda.synchronize()  # the token exists once its step finished

    step(1)
    nvtx = torch.cuda.nvtx
    return step, nvtx.mark, nvtx.range_push, nvtx.range_pop


class Server:
    def __init__(self, args):
        ctx = mp.get_context("spawn")
        self.model = args.model
        self.requests = ctx.Queue()
        self.outputs = ctx.Queue()
        self.ready = ctx.Event()
        self.engine = ctx.Process(target=engine_main, name="engine",
                                  args=(args.engine, args.hidden, args.layers, self.requests,
                                        self.outputs, self.ready))
        self.engine.start()
        self.lock = threading.Lock()
        self.streams = {}  # seq -> queue.Queue of (index, last)
        self.next_seq = 0
        threading.Thread(target=self.route, daemon=True).start()

    def route(self):
        while True:
            seq, index, last = self.outputs.get()
            with self.lock:
                stream = self.streams.get(seq)
            if stream:
                stream.put((index, last))

    def submit(self, n):
        stream = queue.Queue()
        with self.lock:
            seq = self.next_seq
            self.next_seq += 1
            self.streams[seq] = stream
        self.requests.put((seq, n))
        return seq, stream

    def done(self, seq):
        with self.lock:
            self.streams.pop(seq, None)

    def stop(self):
        self.requests.put(None)
        self.engine.join(30)
        if self.engine.is_alive():
            self.engine.terminate()


def handler_for(server):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # the stream ends when the connection closes

        def log_message(self, *_):
            pass

        def reply(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path == "/health":
                ok = server.ready.is_set() and server.engine.is_alive()
                self.reply(200 if ok else 503, {"ready": ok})
            elif self.path == "/v1/models":
                self.reply(200, {"object": "list",
                                 "data": [{"id": server.model, "object": "model"}]})
            else:
                self.reply(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self):
            if self.path != "/v1/completions":
                return self.reply(404, {"error": {"message": f"no route {self.path}"}})
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            if body.get("model") != server.model:
                return self.reply(404, {"error": {"message": f"model {body.get('model')} "
                                                             f"is not served"}})
            prompt = body.get("prompt", "")
            prompt_tokens = len(prompt) if isinstance(prompt, (list, str)) else 0
            n = max(1, int(body.get("max_tokens", 16)))
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            seq, stream = server.submit(n)
            rid = f"cmpl-{seq}"
            try:
                while True:
                    index, last = stream.get()
                    chunk = {"id": rid, "object": "text_completion", "model": server.model,
                             "choices": [{"index": 0, "text": "a",
                                          "finish_reason": "length" if last else None}]}
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                    if last:
                        break
                usage = {"id": rid, "object": "text_completion", "model": server.model,
                         "choices": [], "usage": {"prompt_tokens": prompt_tokens,
                                                  "completion_tokens": n,
                                                  "total_tokens": prompt_tokens + n}}
                self.wfile.write(b"data: " + json.dumps(usage).encode() + b"\n\n")
                self.wfile.write(b"data: [DONE]\n\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                server.done(seq)

    return Handler


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--model", default="torch-spawn")
    p.add_argument("--engine", choices=["torch", "sleep"], default="torch")
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--layers", type=int, default=8)
    args = p.parse_args()
    server = Server(args)
    httpd = ThreadingHTTPServer((args.host, args.port), handler_for(server))
    httpd.daemon_threads = True
    print(f"torch_spawn_server: {args.model} on http://{args.host}:{args.port}, engine pid "
          f"{server.engine.pid}", flush=True)
    stopping = threading.Event()

    def stop(signum, _frame):
        print(f"torch_spawn_server: signal {signum}: stopping", flush=True)
        stopping.set()
        threading.Thread(target=httpd.shutdown, daemon=True).start()

    def watch_engine():
        # An engine that dies takes the server down with it, as vLLM's does:
        # the recording then ends with the server's failure, not a long wait.
        server.engine.join()
        if not stopping.is_set():
            print(f"torch_spawn_server: the engine exited with code {server.engine.exitcode}",
                  flush=True)
            stopping.set()
            httpd.shutdown()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    threading.Thread(target=watch_engine, daemon=True).start()
    try:
        httpd.serve_forever(poll_interval=0.1)
    finally:
        server.stop()
        print(f"torch_spawn_server: engine exit code {server.engine.exitcode}", flush=True)
    return 0 if server.engine.exitcode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
