#!/usr/bin/python3
# play_in_chromium.py: plays video files in headless Chromium, as a browser
# user would meet them, and prints what the <video> element saw:
#   "FILE ok WIDTH HEIGHT DURATION FRAMES" after the whole video played to its
#   `ended` event (FRAMES: getVideoPlaybackQuality().totalVideoFrames; a .gif
#   is decoded frame by frame with ImageDecoder, DURATION the sum of its
#   frames' durations), or
#   "FILE error CODE MESSAGE" when the browser refused it, or
#   "FILE timeout STATE" when neither happened within the time limit.
# Usage: play_in_chromium.py [--timeout SECONDS] FILE...
# Chromium is driven over the DevTools protocol on a pipe
# (--remote-debugging-pipe: fd 3 in, fd 4 out, NUL-terminated JSON), so no
# websocket library is needed; one browser plays the files one after the other.
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

PAGE = """<!doctype html><html><body><pre id="out">loading</pre><script>
const out = document.getElementById('out');
const v = document.createElement('video');
let meta = null;
v.muted = true;
v.preload = 'auto';
v.addEventListener('loadedmetadata', () => {
  meta = [v.videoWidth, v.videoHeight, v.duration];
  out.textContent = 'playing';
  v.play().catch(e => { out.textContent = 'error play ' + e; });
});
v.addEventListener('ended', () => {
  const q = v.getVideoPlaybackQuality();
  out.textContent = `ok ${meta[0]} ${meta[1]} ${meta[2]} ${q.totalVideoFrames}`;
});
v.addEventListener('error', () => {
  out.textContent = 'error ' + (v.error ? v.error.code + ' ' + v.error.message : '?');
});
const src = decodeURIComponent(location.hash.slice(1));
async function gif() {
  // A GIF is an image, not a <video>: WebCodecs' ImageDecoder decodes every
  // frame and gives its duration (microseconds), as a browser shows it.
  try {
    const data = await (await fetch(src)).arrayBuffer();
    const dec = new ImageDecoder({ data: data, type: 'image/gif' });
    await dec.tracks.ready;
    await dec.completed;
    const n = dec.tracks.selectedTrack.frameCount;
    let us = 0, w = 0, h = 0;
    for (let i = 0; i < n; i++) {
      const f = (await dec.decode({ frameIndex: i })).image;
      us += f.duration; w = f.displayWidth; h = f.displayHeight;
      f.close();
    }
    out.textContent = `ok ${w} ${h} ${us / 1e6} ${n}`;
  } catch (e) {
    out.textContent = 'error gif ' + e;
  }
}
if (/[.]gif$/i.test(src)) {
  gif();
} else {
  v.src = src;
  document.body.appendChild(v);
}
</script></body></html>
"""


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="rr-chromium-")
        cmd_r, self.cmd_w = os.pipe()     # we write commands, chromium reads fd 3
        self.res_r, res_w = os.pipe()     # chromium writes fd 4, we read
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        if not exe:
            raise SystemExit("play_in_chromium: no chromium on PATH (Debian package chromium)")
        def fds():                        # in the child: the pipe ends become fds 3 and 4
            a, b = os.dup(cmd_r), os.dup(res_w)   # (out of the way, should either be 3 or 4)
            os.dup2(a, 3)
            os.dup2(b, 4)
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--autoplay-policy=no-user-gesture-required", "--mute-audio", "--allow-file-access-from-files",
             "--disable-dev-shm-usage", "--no-first-run",
             "--user-data-dir=" + self.profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=fds, close_fds=False)  # os.pipe() ends are close-on-exec; 3 and 4 are not
        os.close(cmd_r)
        os.close(res_w)
        self.buf = b""
        self.next_id = 0
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        while True:                       # skip events until our answer
            reply = self.read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def read(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.res_r, 65536)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def open_page(self):
        targets = self.send("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": page["targetId"], "flatten": True}, session=False)["sessionId"]

    def evaluate(self, expr):
        return self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True})["result"].get("value")

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def play(browser, page_url, path, timeout):
    from urllib.parse import quote
    url = page_url + "#" + quote("file://" + os.path.abspath(path), safe="")
    browser.send("Page.navigate", {"url": "about:blank"})
    browser.send("Page.navigate", {"url": url})
    state, deadline = "loading", time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = browser.evaluate("document.getElementById('out') ? "
                                 "document.getElementById('out').textContent : 'loading'") or "loading"
        if state.startswith("ok") or state.startswith("error"):
            return state
        time.sleep(0.1)
    return "timeout " + state


def main(argv):
    timeout = 20.0
    if len(argv) > 2 and argv[1] == "--timeout":
        timeout = float(argv[2])
        argv = argv[2:]
    files = argv[1:]
    if not files:
        print("usage: play_in_chromium.py [--timeout SECONDS] FILE...", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as d:
        page = os.path.join(d, "play.html")
        with open(page, "w") as f:
            f.write(PAGE)
        browser = Browser()
        try:
            browser.open_page()
            for path in files:
                print(path, play(browser, "file://" + page, path, timeout), flush=True)
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
