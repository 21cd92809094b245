import sys, json, time, os, subprocess; sys.path.insert(0,'/tmp/atk'); from drv import *
name=sys.argv[1]; cmdfile=sys.argv[2]
extra = ["--sandbox","workspace","--workspace","/tmp/atk/ws","--approval","auto"]
d, home, sock = setup(name, extra)
# attach a client through a pty, to see what reaches the person's terminal
import pty
pid, fd = pty.fork()
if pid == 0:
    os.execvpe("tmux", ["tmux","-L",sock,"attach","-t","agent"], {"TERM":"xterm-256color","HOME":home,"PATH":"/usr/bin:/bin"})
os.set_blocking(fd, False)
buf = bytearray()
def drain():
    try:
        while True:
            b = os.read(fd, 65536)
            if not b: break
            buf.extend(b)
    except Exception: pass
time.sleep(1)
r = d.call("create_pane", {}); pane = r["sc"]["paneId"]; print("pane", pane, r["sc"].get("sandbox"))
subprocess.run(["tmux","-L",sock,"select-window","-t",pane])
for c in open(cmdfile).read().split("\n====\n"):
    c=c.strip()
    if not c: continue
    r = d.call("run_shell_command", {"paneId": pane, "command": c, "timeoutMs": 15000}, timeout=40)
    drain()
    sc=r.get("sc") or {}
    print("###", c[:120]); print("   ", sc.get("status"), sc.get("exitCode"), repr(sc.get("output"))[:600] if sc else r.get("text")[:400])
time.sleep(1); drain()
print("client saw OSC52:", b"]52;" in buf, "title:", b"approve?" in buf, "passthrough:", b"\x1bPtmux" in buf)
print(subprocess.run(["tmux","-L",sock,"display","-p","-t",pane,"#{pane_title}|#{pane_path}|#{pane_current_path}"],capture_output=True,text=True).stdout)
print(subprocess.run(["tmux","-L",sock,"show-buffer"],capture_output=True,text=True))
d.call("kill_pane", {"paneId": pane}); time.sleep(2)
print(subprocess.run("ps -eo pid,args | grep -E 'sleep 77[78]' | grep -v grep", shell=True, capture_output=True, text=True).stdout or "no bg sleeps left")
d.close()
os.kill(pid, 9)
