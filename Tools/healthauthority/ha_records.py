"""The servers' records in a file of the state folder (`serve --keep-records`), so a restarted server knows the
codes, tokens, signing keys, stored keys and revision tokens of the one before: a real health authority's
database outlives a badge's power cut, and a share the badge resumes afterwards must meet the same server.

Written after every request the services and the control listener answer, to a new file renamed over the old
one: a server killed mid-write leaves the previous records, never half of them. The servers' clock offset is
not kept (a restart takes `--now` again)."""

import os
import pickle
import threading

import ha_common as common

FILE_NAME = "records.pickle"


class Records:
    def __init__(self, state_dir, verification, keyserver):
        self.path = os.path.join(state_dir, FILE_NAME)
        self.verification = verification
        self.keyserver = keyserver
        self._lock = threading.Lock()

    def load(self):
        """Restores what the file holds, if there is one (not at a first start)."""
        try:
            with open(self.path, "rb") as f:
                records = pickle.load(f)
        except FileNotFoundError:
            return
        self.verification.restore(records["verification"])
        self.keyserver.restore(records["keyserver"])

    def save(self):
        records = {"verification": self.verification.records(), "keyserver": self.keyserver.records()}
        with self._lock:
            common.replace_file(self.path, pickle.dumps(records), mode=0o600)  # it holds private keys

    def kept(self, handle):
        """`handle`, then the records saved, whatever it answered."""
        def handle_and_save(request):
            try:
                return handle(request)
            finally:
                self.save()
        return handle_and_save
