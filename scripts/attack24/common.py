"""attack24: attack20's helpers (scripts/attack20/common.py: start/stop PageProxy and the hostile upstream by PID, a
small HTTP client), with scratch files under /tmp/attack24."""
import importlib.util, os

os.environ.setdefault("ATTACK_SCRATCH", "/tmp/attack24")
_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "attack20", "common.py")
_spec = importlib.util.spec_from_file_location("attack20_common", _path)
_common = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_common)
globals().update({k: v for k, v in vars(_common).items() if not k.startswith("__")})
