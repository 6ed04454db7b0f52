#!/usr/bin/env python3
"""Drives headless Chromium through chromedriver (W3C WebDriver over plain HTTP,
no Selenium) to look at a page written by `ricochet view`.

    view_browser.py check PAGE [FRAME...]   JSON facts for tests/spec/view_spec.lua:
        for each frame: the bodies' screen positions and the colours a
        screenshot (PNG decoded here) shows there, a background probe; the
        plots' series; the page's notes
    view_browser.py bench PAGE [SECONDS]    frames per second while playing, and
        the mean time to draw one frame (scripts/bench/view_fps)
    view_browser.py available               exit 0 when chromium and chromedriver run

Exit status 3 (with a message on stderr) when the browser is not available."""
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import time
import urllib.request
import zlib


def find(*names):
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    return None


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Driver:
    def __init__(self, width=1000, height=800):
        self.chrome = find("chromium", "chromium-browser", "google-chrome")
        self.driver = find("chromedriver")
        if not self.chrome or not self.driver:
            raise RuntimeError("chromium and chromedriver are needed (Debian packages chromium, chromium-driver)")
        self.port = free_port()
        self.proc = subprocess.Popen([self.driver, "--port=%d" % self.port], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.base = "http://127.0.0.1:%d" % self.port
        for _ in range(100):
            try:
                self.call("GET", "/status")
                break
            except Exception:
                time.sleep(0.1)
        else:
            self.close()
            raise RuntimeError("chromedriver did not start")
        args = ["--headless=new", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                "--window-size=%d,%d" % (width, height), "--force-device-scale-factor=1",
                "--allow-file-access-from-files"]
        if os.geteuid() == 0:
            args.append("--no-sandbox")
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome",
                "goog:chromeOptions": {"binary": self.chrome, "args": args}}}}
        try:
            r = self.call("POST", "/session", caps)
        except Exception:
            self.close()
            raise
        self.sid = r["sessionId"]

    def call(self, method, path, body=None, timeout=300):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as f:
                return json.loads(f.read().decode())["value"]
        except urllib.error.HTTPError as e:
            raise RuntimeError("webdriver %s %s: %s" % (method, path, e.read().decode()[:2000]))

    def s(self, method, path, body=None):
        return self.call(method, "/session/%s%s" % (self.sid, path), body)

    def js(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def js_async(self, script, *args):
        return self.s("POST", "/execute/async", {"script": script, "args": list(args)})

    def close(self):
        try:
            if getattr(self, "sid", None):
                self.call("DELETE", "/session/" + self.sid)
        except Exception:
            pass
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def png_decode(data):
    """(width, height, channels, rows of bytes): 8-bit RGB/RGBA, not interlaced."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, idat, w = 8, [], None
    while at < len(data):
        n, typ = struct.unpack(">I4s", data[at:at + 8])
        chunk = data[at + 8:at + 8 + n]
        if typ == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, "unsupported PNG"
            ch = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat.append(chunk)
        at += 12 + n
    raw = zlib.decompress(b"".join(idat))
    stride = w * ch
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(ch, stride):
                line[i] = (line[i] + line[i - ch]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - ch] if i >= ch else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - ch] if i >= ch else 0
                b = prev[i]
                c = prev[i - ch] if i >= ch else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        rows.append(line)
        prev = line
    return w, h, ch, rows


def pixel(img, x, y):
    w, h, ch, rows = img
    x, y = int(round(x)), int(round(y))
    if not (0 <= x < w and 0 <= y < h):
        return None
    return list(rows[y][x * ch:x * ch + 3])


def open_page(d, page):
    d.s("POST", "/url", {"url": "file://" + os.path.abspath(page)})
    return d.js_async("const done = arguments[arguments.length - 1];"
                      "window.rcView.ready.then(() => done('ok'), (e) => done('error: ' + e));")


def check(page, frames):
    d = Driver()
    try:
        ready = open_page(d, page)
        out = {"ready": ready, "frames": d.js("return window.rcView.frames()"),
               "notes": d.js("return window.rcView.notes()"), "end": d.js("return window.rcView.end()"),
               "columns": d.js("return window.rcView.columns()"), "checks": []}
        nf = out["frames"]
        for k in frames or ([0, nf - 1] if nf else []):
            k = int(k) if int(k) >= 0 else nf + int(k)
            got = d.js("return window.rcView.setFrame(arguments[0])", k)
            info = d.js("const n = window.rcView.frames() ? arguments[0] : 0; const b = [];"
                        "for (let i = 0; i < n; i++) b.push(window.rcView.bodyScreen(i)); return b;", 64)
            rect = d.js("return window.rcView.canvasRect()")
            img = png_decode(base64.b64decode(d.s("GET", "/screenshot")))
            bodies = []
            for b in info:
                if b is None or b["x"] is None:
                    continue
                # four pixels at 0.35 of the bounding radius around the centre (one may be the rotation mark)
                ring = [pixel(img, b["x"] + 0.35 * b["r"] * dx, b["y"] + 0.35 * b["r"] * dy)
                        for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1))]
                bodies.append({"x": b["x"], "y": b["y"], "r": b["r"], "rgb": pixel(img, b["x"], b["y"]), "ring": ring})
            # background probes: the canvas corners' insides away from everything drawn there
            probes = [pixel(img, rect["x"] + rect["w"] - 5, rect["y"] + 5), pixel(img, rect["x"] + 5, rect["y"] + 5)]
            out["checks"].append({"frame": got, "time": d.js("return window.rcView.time()"), "bodies": bodies,
                                  "probes": probes, "size": [img[0], img[1]], "canvas": rect})
        if nf:
            # zoomed out until the disks are a few pixels wide: drawn as pixels (the fast path)
            d.js("window.rcView.setFrame(0); return window.rcView.zoom(0.15)")
            info = d.js("const b = []; for (let i = 0; i < Math.min(64, window.rcView.frames() && 64); i++) {"
                        " try { b.push(window.rcView.bodyScreen(i)); } catch (e) { break; } } return b;")
            img = png_decode(base64.b64decode(d.s("GET", "/screenshot")))
            out["small"] = [{"x": b["x"], "y": b["y"], "r": b["r"], "rgb": pixel(img, b["x"], b["y"])}
                            for b in info if b and b["x"] is not None]
            d.js("return window.rcView.zoom(1 / 0.15)")
        out["plots"] = d.js("return window.rcView.plots()")
        cols = [c for c in out["columns"] if c.endswith(".x")][:1]
        if cols:
            d.js("return window.rcView.tick(arguments[0])", cols[0])
            out["plots_ticked"] = d.js("return window.rcView.plots()")
            out["ticked"] = cols[0]
        if nf:
            out["info"] = d.js("return window.rcView.select(0)")
        return out
    finally:
        d.close()


def bench(page, seconds):
    d = Driver(1280, 900)
    try:
        t0 = time.time()
        ready = open_page(d, page)
        load = time.time() - t0
        nf = d.js("return window.rcView.frames()")
        draw_ms = d.js("return window.rcView.drawBench(1)")
        play = d.js_async("const done = arguments[arguments.length - 1];"
                          "window.rcView.playBench(arguments[0]).then(done);", int(seconds * 1000))
        return {"ready": ready, "load_s": load, "frames": nf, "draw_ms": draw_ms, "play": play}
    finally:
        d.close()


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd = sys.argv[1]
    try:
        if cmd == "available":
            Driver().close()
            print("ok")
            return 0
        if cmd == "check":
            print(json.dumps(check(sys.argv[2], sys.argv[3:])))
            return 0
        if cmd == "shot":      # view_browser.py shot PAGE PNG [FRAME]: a screenshot, for looking
            d = Driver()
            try:
                open_page(d, sys.argv[2])
                if len(sys.argv) > 4:
                    d.js("return window.rcView.setFrame(arguments[0])", int(sys.argv[4]))
                open(sys.argv[3], "wb").write(base64.b64decode(d.s("GET", "/screenshot")))
            finally:
                d.close()
            return 0
        if cmd == "bench":
            print(json.dumps(bench(sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 5.0)))
            return 0
    except RuntimeError as e:
        print("view_browser: %s" % e, file=sys.stderr)
        return 3
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
