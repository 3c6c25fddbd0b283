"""Hot reload of the overrides file, as Kubernetes updates a mounted ConfigMap.

Kubernetes never rewrites the mounted file in place: it writes a new
timestamped directory and atomically re-points the ``..data`` symlink, and the
file the pod sees (``overrides.yaml -> ..data/overrides.yaml``) follows.  So the
watcher resolves symlinks and compares the resolved path, inode, size and mtime
of the target; when any of them changed it reads the file and compares the
SHA-256 of its content, which is what decides whether anything changed.  As a
safety net against coarse mtimes and editors that keep inode and size, the
content is re-read anyway every *recheck_every* seconds.

On a running processor, a file that vanishes and a file without an
``overrides:`` list (empty, comments only, ``overrides:`` with nothing after
it) are the same suspicious change: a deleted ConfigMap key, a truncated edit,
a template rendered empty.  Both are refused like an invalid file, the last
good overrides staying in force.  A file meaning "no overrides" says so:
``overrides: []``.  At start there is nothing to keep, so both mean no
overrides (a missing file only when *allow_missing*).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable

from .config import OverrideConfig, empty_config
from .exceptions import OverridesError, Problem
from .loader import parse_overrides

#: What identifies the file version on disk without reading it.
_Signature = tuple[str, int, int, int, int] | None

_MISSING = "missing"
#: Why a running processor refuses a file it cannot tell from a truncated one, and what to write instead.
NO_LIST = ("no 'overrides:' list: the file is empty, holds only comments or stops at 'overrides:'"
           " (a truncated edit or an empty template render?)")
MEANING_NONE = "to remove every override, write 'overrides: []'"
_ABSENT = "absent since start"  # allow_missing and the file never existed: not a refusal
_RESTORED = object()  # _check's answer when a refused file is back to the content in force


class OverridesWatcher:
    """The live overrides: ``current`` is always a valid ``OverrideConfig``; ``check()`` picks up edits.

    ``check()`` is meant to be called between batches by the processor loop; it
    costs one ``stat`` unless the file changed.  A valid new file replaces
    ``current`` in a single assignment of an immutable object, so a reader never
    sees half a reload.  An invalid one (or the file disappearing) is refused:
    ``current`` keeps the last good config and ``on_rejected(error)`` is called
    once per distinct bad content, not on every check.  A file without an
    ``overrides:`` list is refused the same way (see the module docstring).
    ``on_reload(new, old)``
    is called after each swap.  When a refused file is put back to the content
    in force, byte for byte (a git revert, a helm rollback), nothing is swapped
    but the refusal is over: ``on_restored(current)`` is called, so whatever
    ``on_rejected`` raised (an alert) can be cleared.  Exceptions raised by
    callbacks propagate.

    A file missing at construction raises ``OverridesError`` unless
    *allow_missing*, in which case it means no overrides until the file appears
    (and its going missing again later is no refusal: nothing else was in force).
    An invalid file at construction always raises: there is no last good one.
    A file without an ``overrides:`` list at construction means no overrides.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        on_reload: Callable[[OverrideConfig, OverrideConfig], None] | None = None,
        on_rejected: Callable[[OverridesError], None] | None = None,
        on_restored: Callable[[OverrideConfig], None] | None = None,
        allow_missing: bool = False,
        clock: Callable[[], float] = time.monotonic,
        recheck_every: float = 60.0,
    ) -> None:
        self.path = os.fspath(path)
        self._on_reload = on_reload
        self._on_rejected = on_rejected
        self._on_restored = on_restored
        self._clock = clock
        self._recheck_every = recheck_every
        self._lock = threading.Lock()
        self._rejected: str | None = None  # digest (or _MISSING) of the bad content last reported
        self._absent: OverrideConfig | None = None  # the config in force while the file was missing at start
        self._signature = _signature(self.path)
        self._last_read = clock()
        try:
            data = self._read()
        except OSError as exc:
            raise OverridesError(self.path, [Problem(None, f"cannot read: {exc.strerror or exc}")]) from exc
        if data is None:
            if not allow_missing:
                raise OverridesError(self.path, [Problem(None, "file not found")])
            self._current = self._absent = empty_config(self.path)
            self._rejected = _ABSENT
        else:
            self._current = parse_overrides(data, self.path)
        #: When ``current`` was last replaced, by *clock*.
        self.loaded_at = self._last_read

    @property
    def current(self) -> OverrideConfig:
        return self._current

    @property
    def rejected(self) -> bool:
        """True while the file on disk is refused (invalid, unreadable, deleted or without an ``overrides:`` list)
        and an older config is in force."""
        return self._rejected not in (None, _ABSENT)

    def check(self) -> bool:
        """Reload if the file changed; True when a new config was swapped in."""
        with self._lock:
            outcome = self._check()
        if isinstance(outcome, OverridesError):
            if self._on_rejected is not None:
                self._on_rejected(outcome)
            return False
        if outcome is _RESTORED:
            if self._on_restored is not None:
                self._on_restored(self._current)
            return False
        if isinstance(outcome, tuple) and self._on_reload is not None:  # (new, old): the only other outcome
            self._on_reload(*outcome)
        return outcome is not None

    def _check(self) -> tuple[OverrideConfig, OverrideConfig] | OverridesError | object | None:
        """Under the lock: (new, old) after a swap, an error to report, ``_RESTORED`` when a refused file
        became the one in force again, or None when nothing is to be said."""
        signature = _signature(self.path)
        now = self._clock()
        if signature == self._signature and now - self._last_read < self._recheck_every:
            return None
        self._signature, self._last_read = signature, now
        try:
            data = self._read()
        except OSError as exc:
            return self._refuse(f"unreadable: {exc}", Problem(None, f"cannot read: {exc.strerror or exc}"))
        if data is None:
            if self._rejected == _ABSENT:  # allowed to be missing and never seen: nothing to report
                return None
            if self._current is self._absent:  # missing since start, again after a refused file: as in force
                self._rejected = _ABSENT
                return _RESTORED
            return self._refuse(_MISSING, Problem(None, "file not found"), hint=MEANING_NONE)
        digest = hashlib.sha256(data).hexdigest()
        if digest == self._current.digest:
            refused, self._rejected = self.rejected, None
            return _RESTORED if refused else None
        if digest == self._rejected:
            return None
        try:
            new = parse_overrides(data, self.path)
        except OverridesError as exc:
            return self._refuse(digest, *exc.problems)
        if not new.has_list:
            return self._refuse(digest, Problem(None, NO_LIST), hint=MEANING_NONE)
        old, self._current = self._current, new
        self._rejected = None
        self.loaded_at = now
        return new, old

    def _refuse(self, key: str, *problems: Problem, hint: str | None = None) -> OverridesError | None:
        """Remember the refused content; an error to report only the first time it is seen (*hint* last)."""
        if key == self._rejected:
            return None
        self._rejected = key
        live = self._current.digest[:12] or "none"
        keeping = Problem(None, f"refused; keeping the last good overrides (sha256 {live})")
        advice = () if hint is None else (Problem(None, hint),)
        return OverridesError(self.path, (*problems, keeping, *advice))

    def _read(self) -> bytes | None:
        try:
            with open(self.path, "rb") as file:
                return file.read()
        except FileNotFoundError:
            return None


def _signature(path: str) -> _Signature:
    try:
        real = os.path.realpath(path)
        stat = os.stat(real)
    except OSError:
        return None
    return (real, stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)
