/**
 * The helper an exec session runs under (Python 3, run with `python3 -c`): it leads the
 * session's process group, forks the command and tells the edge its pid on fd 3, a socket
 * that also carries `resize <cols> <rows>` lines the other way. When that socket closes (the
 * edge killed the session, or the edge process itself died, even by SIGKILL) it kills the
 * command's process group and itself: nothing an exec started outlives the edge.
 * Mode `pipe`: the command gets the helper's stdin, stdout and stderr (the edge's pipes, so a
 * reader that stops reading stops the command). Mode `tty`: the command runs on a new
 * pseudo-terminal as its session leader, and the helper relays bytes between the terminal and
 * its own stdin and stdout with blocking writes (backpressure again). A resize that arrives
 * within the first 200 ms is applied before the command starts (kubectl sends the size first).
 * It exits with the command's exit code (128 + signal for a killed one).
 * argv: mode command [args...].
 */
export const SESSION_HELPER_SOURCE = String.raw`
import os, sys, select, signal, struct, fcntl, termios, pty
mode, argv = sys.argv[1], sys.argv[2:]
CTL = 3
ctl_buf = b''
def resize(fd, line):
    parts = line.split()
    if len(parts) == 3 and parts[0] == b'resize':
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', int(parts[2]), int(parts[1]), 0, 0))
def read_ctl(fd):
    global ctl_buf
    try:
        chunk = os.read(CTL, 4096)
    except OSError:
        chunk = b''
    if not chunk:
        return False
    ctl_buf += chunk
    while b'\n' in ctl_buf:
        line, ctl_buf = ctl_buf.split(b'\n', 1)
        resize(fd, line)
    return True
def started(pid, sync):
    # the command's end of sync closes when it execs (or fails to): it has its own session by then
    os.read(sync, 1)
    os.close(sync)
    os.write(CTL, b'pid %d\n' % pid)
def run(closing):
    for fd in closing:
        os.close(fd)
    os.close(CTL)
    try:
        os.execvp(argv[0], argv)
    except FileNotFoundError:
        os.write(2, ('exec: "%s": executable file not found in $PATH\n' % argv[0]).encode())
        os._exit(127)
    except OSError as err:
        os.write(2, ('exec: "%s": %s\n' % (argv[0], err.strerror)).encode())
        os._exit(126)
def code_of(status):
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code
def gone(pid):
    try: os.killpg(pid, signal.SIGKILL)
    except OSError: pass
def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]
def pipe_mode():
    sync, synced = os.pipe()
    pid = os.fork()
    if pid == 0:
        run([sync])
    os.close(synced)
    for fd in (0, 1, 2):
        os.close(fd)
    started(pid, sync)
    while True:
        ready, _, _ = select.select([CTL], [], [], 0.05)
        if ready and not read_ctl(None):
            os.killpg(0, signal.SIGKILL)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            os._exit(code_of(status))
def tty_mode():
    master, slave = pty.openpty()
    ready, _, _ = select.select([CTL], [], [], 0.2)
    if ready and not read_ctl(slave):
        os._exit(137)
    sync, synced = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        run([master, slave, sync])
    os.close(slave)
    os.close(synced)
    started(pid, sync)
    inputs, status = [0, master, CTL], None
    while True:
        ready, _, _ = select.select(inputs, [], [], 0.05)
        if CTL in ready and not read_ctl(master):
            gone(pid)
            os.killpg(0, signal.SIGKILL)
        if 0 in ready:
            data = os.read(0, 65536)
            if data: write_all(master, data)
            else:
                inputs.remove(0)
                write_all(master, b'\x04')
        if master in ready or status is not None:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b''
            if data: write_all(1, data)
            elif status is not None: os._exit(code_of(status))
            else: inputs.remove(master)
        if status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
                gone(pid)
                if master not in inputs: os._exit(code_of(status))
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
tty_mode() if mode == 'tty' else pipe_mode()
`;
