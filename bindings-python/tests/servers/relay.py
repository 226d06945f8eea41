"""A transparent stdio relay that logs what the client sends: every line the client writes is
appended to LOG before it is passed on to the server.

    python relay.py LOG -- CMD [ARGS...]
"""

import subprocess
import sys
import threading


def main() -> int:
    log_path = sys.argv[1]
    command = sys.argv[sys.argv.index("--") + 1 :]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None

    def upstream() -> None:
        try:
            with open(log_path, "ab") as log:
                for line in sys.stdin.buffer:
                    log.write(line)
                    log.flush()
                    child.stdin.write(line)
                    child.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        finally:
            try:
                child.stdin.close()
            except OSError:
                pass

    threading.Thread(target=upstream, daemon=True).start()
    try:
        for line in child.stdout:
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()
    except (BrokenPipeError, OSError):
        child.kill()
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
