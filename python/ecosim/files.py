"""Writing a file the way ecosim's commands write their outputs (traces/README.md, "Output files"): a regular file
(or a new one) is written to a temporary file beside it and renamed over it, so a failed write leaves no partial
file; a symbolic link is followed; a device or FIFO is written through."""
import os
import stat
import tempfile
from pathlib import Path


def write_atomically(path, data):
    """Writes bytes or str `data` to `path` (see the module's documentation)."""
    target = Path(os.path.realpath(path))
    payload = data.encode() if isinstance(data, str) else data
    try:
        through = not stat.S_ISREG(target.stat().st_mode)
    except FileNotFoundError:
        through = False
    if through:
        with open(target, "wb") as out:
            out.write(payload)
        return
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(payload)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise
