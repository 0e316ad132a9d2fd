"""Writing a file the way ecosim's commands write their outputs (traces/README.md, "Output files"): a regular file
(or a new one) is written to a temporary file beside it and renamed over it, so a failed write leaves no partial
file, with the mode the file had (a new one: 0666 less the umask, as a plain create); a symbolic link is followed;
a device or FIFO is written through, and a FIFO no program reads is an error rather than a wait forever.

Plain Python, no ecosim import: the command line also hands this file to its embedded scripts (the plots,
step_time.py) as the module `files`."""
import errno
import os
import stat
import tempfile
from pathlib import Path


def default_mode():
    """The mode a plain create gives: 0666 less the umask (which can only be read by setting it)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_through(target, payload):
    """Writes to a device or FIFO in place; a FIFO without a reader raises OSError(ENXIO) instead of blocking."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        if e.errno == errno.ENXIO:
            raise OSError(errno.ENXIO, f"{target}: a FIFO that no program is reading") from None
        raise
    os.set_blocking(fd, True)
    with os.fdopen(fd, "wb") as out:
        out.write(payload)


def write_atomically(path, data):
    """Writes bytes or str `data` to `path` (see the module's documentation)."""
    target = Path(os.path.realpath(path))
    payload = data.encode() if isinstance(data, str) else data
    try:
        existing = target.stat().st_mode
    except FileNotFoundError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing):
        write_through(target, payload)
        return
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            os.fchmod(out.fileno(), stat.S_IMODE(existing) if existing is not None else default_mode())
            out.write(payload)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise
