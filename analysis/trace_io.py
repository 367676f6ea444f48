"""Loads a flowbench HDF5 trace (docs/trace-format.md) into pandas DataFrames.

Used by plot_trace.py and trace_to_csv.py; runs on Debian's /usr/bin/python3 (h5py, pandas).
Ids are resolved to names: events get kind_name, device_name, node_name, op_name, peer_name and
duration_ns columns; devices get name and type strings; metrics get a name string.
"""
import h5py
import numpy as np
import pandas as pd

SCHEMA_VERSIONS = (1, 2)  # 2: string blob and string ids, no variable-length data
EVENT_KINDS = {0: "compute", 1: "send", 2: "recv", 3: "memcpy"}


class TraceError(Exception):
    pass


def _attr_str(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def _lookup(names, ids):
    """Maps an array of ids to names ('' for -1)."""
    ids = np.asarray(ids)
    table = np.append(names, "")  # index -1 picks the trailing ''
    return table[np.where(ids < 0, len(names), ids)]


def _strings_v2(f, path):
    """Version 2's string table: /strings/data (uint8, concatenated UTF-8) and /strings/offsets
    (int64, n + 1 offsets from 0 to len(data)); string i is data[offsets[i]:offsets[i + 1]]."""
    if "strings/data" not in f or "strings/offsets" not in f:
        raise TraceError(f"{path}: missing dataset /strings/data or /strings/offsets")
    data = f["strings/data"][:].tobytes()
    offsets = f["strings/offsets"][:]
    if (len(offsets) < 1 or offsets[0] != 0 or offsets[-1] != len(data)
            or np.any(np.diff(offsets) < 0)):
        raise TraceError(f"{path}: dataset /strings/offsets does not index /strings/data")
    return np.array([data[a:b].decode("utf-8", "replace")
                     for a, b in zip(offsets[:-1], offsets[1:])], dtype=object)


def _resolve_text_attrs(attrs, strings, path):
    """Version 2 stores git_revision, command_line, host and config as string ids."""
    for key in ("git_revision", "command_line", "host", "config"):
        sid = attrs.get(key)
        if not isinstance(sid, int) or not 0 <= sid < len(strings):
            raise TraceError(f"{path}: attribute '{key}' is not a string id")
        attrs[key] = strings[sid]


def load_trace(path):
    """Returns {"path": str, "attrs": dict, "strings", "devices", "ops", "edges", "events", "steps", "memory",
    "metrics": DataFrame}. Reads schema versions 1 and 2 (attrs hold text either way). Raises
    TraceError naming the file on a wrong schema or missing data."""
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise TraceError(f"{path}: cannot open trace: {e}") from e
    with f:
        attrs = {k: (_attr_str(v) if isinstance(v, (bytes, str, np.bytes_)) else v.item())
                 for k, v in f.attrs.items()}
        version = attrs.get("schema_version")
        if version not in SCHEMA_VERSIONS:
            raise TraceError(f"{path}: trace schema_version is {version}, "
                             f"this script reads versions {SCHEMA_VERSIONS}")
        tables = {}
        for name in ["devices", "graph/ops", "graph/edges", "events", "steps", "memory",
                     "metrics"]:
            if name not in f:
                raise TraceError(f"{path}: missing dataset /{name}")
            tables[name.split("/")[-1]] = pd.DataFrame(f[name][:])
        if version == 1:
            strings = np.array(f["strings"].asstr()[:], dtype=object)
        else:
            strings = _strings_v2(f, path)
            _resolve_text_attrs(attrs, strings, path)
    names = {"strings": pd.Series(strings, name="name")}
    dev = tables["devices"]
    dev["name"] = _lookup(strings, dev["name"])
    dev["type"] = _lookup(strings, dev["type"])
    device_names = dev.sort_values("id")["name"].to_numpy(dtype=object)
    ev = tables["events"]
    ev["kind_name"] = ev["kind"].map(EVENT_KINDS).fillna("unknown")
    ev["device_name"] = _lookup(device_names, ev["device"])
    ev["peer_name"] = _lookup(device_names, ev["peer_device"])
    ev["node_name"] = _lookup(strings, ev["node"])
    ev["op_name"] = _lookup(strings, ev["op_type"])
    ev["duration_ns"] = ev["end_ns"] - ev["start_ns"]
    ops = tables["ops"]
    ops["node_name"] = _lookup(strings, ops["node"])
    ops["op_name"] = _lookup(strings, ops["op_type"])
    ops["device_name"] = _lookup(device_names, ops["device"])
    tables["memory"]["device_name"] = _lookup(device_names, tables["memory"]["device"])
    tables["metrics"]["name"] = _lookup(strings, tables["metrics"]["name"])
    return {"path": path, "attrs": attrs, **names, **tables}


def step_durations(trace):
    """DataFrame (step, start_ns, end_ns, duration_ns) from /steps, or from each step's events
    when /steps is empty."""
    steps = trace["steps"]
    if steps.empty:
        ev = trace["events"]
        steps = ev.groupby("step").agg(start_ns=("start_ns", "min"),
                                       end_ns=("end_ns", "max")).reset_index()
    steps = steps.groupby("step").agg(start_ns=("start_ns", "min"),
                                      end_ns=("end_ns", "max")).reset_index()
    steps["duration_ns"] = steps["end_ns"] - steps["start_ns"]
    return steps


def median_step(trace):
    """The step whose duration is the median (the lower middle one for an even count), among the
    steps that have events when some do (training runs trace only a few of their steps)."""
    steps = step_durations(trace)
    traced = steps[steps["step"].isin(trace["events"]["step"].unique())]
    if not traced.empty:
        steps = traced
    steps = steps.sort_values(["duration_ns", "step"]).reset_index(drop=True)
    if steps.empty:
        raise TraceError(f"{trace['path']}: trace has no steps and no events")
    return int(steps.loc[(len(steps) - 1) // 2, "step"])
