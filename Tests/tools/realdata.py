#!/usr/bin/python3
"""Feeds the real-world advertisement vectors through the real binary and checks what it
prints against what the vectors' upstream tests assert.

usage: realdata.py BINARY ADVERTS.json [--floor TIER=PERCENT ...] [--schema SCHEMA] [--verbose]

Every vector of Tests/Fixtures/realdata/adverts.json (README.md beside it) becomes one
`advertisement` line of a recording, in the BlueZ-style fields the vector carries; the
binary plays the recording as its world (`--demo --demo-recording FILE scan --json`) and
prints a device line per vector. Vectors that share an address go to separate runs.

Tiers (a vector counts in each tier it has expectations for):
  generic    every fact BlueZ gives: name, TX power, each manufacturer and service-data
             entry, the service UUIDs, the SIG's company and service names
  raw        `bleexplr decode` of the vector's raw AD bytes, where it has them, gives
             those same facts (padding, overrunning structures, a NUL in a name)
  beacon     iBeacon / AltBeacon / Eddystone / UriBeacon fields the upstream tests (or,
             where they assert nothing, the dataset's own decoding) give; a layout under
             the wrong company or an unknown Eddystone frame must not be decoded
  bthome     unencrypted BTHome: every measurement value upstream asserts
  decrypted  encrypted BTHome opened with the vector's bind key (`--key`): its values
  encrypted  every encrypted payload (BTHome, MiBeacon, Eddystone-eTLM) is flagged

Prints each tier's figure, every failure with --verbose, and exits 1 when a tier is
below its --floor, or when a device line is not valid against --schema (the commands'
docs/output.schema.json; needs python3-jsonschema).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

MAC = re.compile(r"^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$")
BASE = "-0000-1000-8000-00805f9b34fb"


def address_of(index, vector):
    a = vector.get("address") or ""
    if MAC.match(a):
        return a.upper()
    return "52:44:00:00:%02X:%02X" % (index >> 8, index & 0xFF)


def recording_line(address, v):
    line = {"t": "2026-12-01T00:00:00.000Z", "type": "advertisement", "address": address, "connectable": True}
    if v.get("local_name") is not None:
        line["name"] = v["local_name"]
        line["localName"] = v["local_name"]
    if v.get("rssi") is not None:
        line["rssi"] = v["rssi"]
    if v.get("service_uuids"):
        line["serviceUUIDs"] = v["service_uuids"]
    if v.get("manufacturer_data"):
        line["manufacturerData"] = {"%04x" % int(k): h for k, h in v["manufacturer_data"].items()}
    if v.get("service_data"):
        line["serviceData"] = v["service_data"]
    for ours, theirs in (("txPower", "tx_power"), ("flags", "flags"), ("appearance", "appearance")):
        if v.get(theirs) is not None:
            line[ours] = v[theirs]
    return line


def batches(vectors):
    """Runs of vectors with distinct addresses, each vector once."""
    runs = []
    for i, v in enumerate(vectors):
        a = address_of(i, v)
        for run in runs:
            if a not in run:
                run[a] = v
                break
        else:
            runs.append({a: v})
    return runs


def scan(binary, run):
    header = {"type": "header", "format": 1, "bleexplr": "realdata", "started": "2026-12-01T00:00:00.000Z",
              "backend": "replay", "adapter": "hci0", "seed": "0"}
    adapter = {"t": "2026-12-01T00:00:00.000Z", "type": "adapter", "adapter": "hci0", "power": "on", "discovering": True}
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        f.write(json.dumps(header) + "\n" + json.dumps(adapter) + "\n")
        for a, v in run.items():
            f.write(json.dumps(recording_line(a, v)) + "\n")
        path = f.name
    try:
        # The bind keys the upstream tests use, for the vectors whose address is real (the
        # key opens the frame only with the advertiser's address).
        keys = []
        for a, v in run.items():
            if v.get("bindkey") and len(v["bindkey"]) == 32 and MAC.match(v.get("address") or ""):
                keys += ["--key", f"{a}={v['bindkey']}"]
        out = subprocess.run([binary, "--demo", "--demo-recording", path, *keys, "scan", "--duration", "1", "--json"],
                             capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(path)
    if out.returncode != 0:
        raise SystemExit(f"{binary} scan failed ({out.returncode}): {out.stderr.strip()}")
    return {d["address"]: d for d in map(json.loads, filter(None, out.stdout.split("\n")))}


# MARK: generic facts

def generic(v, d):
    fails = []
    if d.get("name") != v.get("local_name"):
        fails.append(f"name {d.get('name')!r} != {v.get('local_name')!r}")
    if d.get("txPower") != v.get("tx_power"):
        fails.append(f"txPower {d.get('txPower')!r} != {v.get('tx_power')!r}")
    want = {"%04x" % int(k): h for k, h in (v.get("manufacturer_data") or {}).items()}
    if d.get("manufacturerData") != want:
        fails.append(f"manufacturerData {d.get('manufacturerData')} != {want}")
    if d.get("serviceData") != (v.get("service_data") or {}):
        fails.append(f"serviceData {d.get('serviceData')} != {v.get('service_data')}")
    if sorted(d.get("serviceUUIDs") or []) != sorted(v.get("service_uuids") or []):
        fails.append(f"serviceUUIDs {d.get('serviceUUIDs')} != {v.get('service_uuids')}")
    for k, name in (v["expect"].get("company_names") or {}).items():
        got = (d.get("companies") or {}).get("%04x" % int(k))
        if not same_name(got, name):
            fails.append(f"company {int(k):#06x} named {got!r}, expected {name!r}")
    for u, name in (v["expect"].get("service_uuid_names") or {}).items():
        got = (d.get("services") or {}).get(u)
        if not same_name(got, name):
            fails.append(f"service {u} named {got!r}, expected {name!r}")
    return fails


def same_name(got, want):
    """Names from other tables differ in spelling ("Inc." vs "Inc", "Service" suffixes):
    the same words, case and punctuation aside, are the same name; no name expected means
    none may be claimed."""
    if want is None or got is None:
        return got == want
    def words(s):
        w = [w for w in re.split(r"[^a-z0-9]+", s.lower()) if w and w not in ("service", "class", "the")]
        while w and w[-1] in LEGAL_FORMS:
            w.pop()
        return w
    return words(got) == words(want)


# A company's legal form is not part of its name: "Google" and "Google LLC" are one company.
LEGAL_FORMS = {"inc", "incorporated", "ltd", "llc", "co", "corp", "corporation", "limited", "gmbh", "ag", "asa", "as",
               "a", "s", "ab", "oy", "sa", "sas", "bv", "b", "v", "se", "plc", "pty", "aps", "kg"}


# MARK: beacons

def frames(d, kind):
    return [f for f in d.get("frames") or [] if f["kind"] == kind]


def hexid(s):
    return str(s).replace("-", "").lower()


def expected_beacons(v):
    """(kind, {field: value}) for each beacon the vector's expectations name; (kind, None)
    for one that must not be found."""
    e, derived = v["expect"], v.get("expect_derived") or {}
    out = []
    bt = e.get("beacontools") or {}
    cls = bt.get("frame_class")
    if cls == "IBeaconAdvertisement":
        out.append(("ibeacon", {"uuid": bt["uuid"], "major": bt.get("major"), "power": bt.get("tx_power")}
                    | ({"minor": bt["minor"]} if "minor" in bt else {})))
    elif cls == "EddystoneUIDFrame":
        out.append(("eddystone-uid", {"namespace": bt["namespace"], "instance": bt["instance"], "txPower": bt["tx_power"]}))
    elif cls == "EddystoneURLFrame":
        out.append(("eddystone-url", {"url": bt["url"], "txPower": bt["tx_power"]}))
    elif cls == "EddystoneTLMFrame":
        # beacontools calls the frame's uptime counter "seconds"; the specification counts tenths.
        out.append(("eddystone-tlm", {"batteryMillivolts": bt["voltage"], "advCount": bt["advertising_count"],
                                       "uptimeTenths": bt["seconds_since_boot"]}
                    | ({"celsius": bt["temperature"]} if "temperature" in bt else {})))
    elif cls == "EddystoneEncryptedTLMFrame":
        out.append(("eddystone-etlm", {"data": bt["encrypted_data"]}))
    elif cls == "EddystoneEIDFrame":
        out.append(("eddystone-eid", {"eid": bt["eid"], "txPower": bt["tx_power"]}))
    ib = e.get("ibeacon_ble") or {}
    if "uuid" in ib:
        out.append(("ibeacon", {"uuid": ib["uuid"], "major": ib["major"], "minor": ib["minor"], "power": ib["measured_power"]}))
    elif "parsed" in ib and ib["parsed"] is None and "76" not in (v.get("manufacturer_data") or {}):
        out.append(("ibeacon", None))
    bm = e.get("ble_monitor") or {}
    if bm.get("type") == "iBeacon":
        out.append(("ibeacon", {"uuid": bm["uuid"], "major": bm["major"], "minor": bm["minor"], "power": bm["measured power"]}))
    if bm.get("type") == "AltBeacon":
        out.append(("altbeacon", {"id1": bm["uuid"], "id2": bm["major"], "id3": bm["minor"], "referenceRSSI": bm["measured power"]}))
    abl = e.get("android_beacon_library") or {}
    if "id1" in abl:
        want = {"id1": abl["id1"], "id2": int(abl["id2"]), "id3": int(abl["id3"]), "referenceRSSI": abl["tx_power"],
                "company": abl["manufacturer"]}
        for k, val in abl.items():
            if k.startswith("mfg_reserved"):
                want["reserved"] = val
        out.append(("altbeacon", want))
    if "url" in abl and any("fed8" in u for u in v.get("service_data", {})):
        out.append(("uribeacon", {"url": abl["url"]}))
    ed = e.get("eddystone") or {}
    if ed:
        out.append(eddystone_expectation(ed))
    # The dataset's own decoding, only where no upstream assertion names that kind.
    named = {k for k, _ in out}
    if "ibeacon" in derived and "ibeacon" not in named:
        d = derived["ibeacon"]
        out.append(("ibeacon", {"uuid": d["uuid"], "major": d["major"], "minor": d["minor"], "power": d["measured_power"]}))
    if "altbeacon" in derived and "altbeacon" not in named:
        d = derived["altbeacon"]
        out.append(("altbeacon", {"id1": d["id1_uuid"], "id2": d["id2"], "id3": d["id3"], "referenceRSSI": d["reference_rssi"],
                                  "company": d["company_id"], "reserved": d["mfg_reserved"]}))
    if "eddystone" in derived and not any(k.startswith("eddystone") for k in named):
        out.append(eddystone_expectation(derived["eddystone"]))
    return out


def eddystone_expectation(ed):
    frame = ed.get("frame", "")
    if frame == "URL":
        return ("eddystone-url", {"url": ed["url"], "txPower": ed["tx_power_0m"]})
    if frame == "UID":
        return ("eddystone-uid", {"namespace": ed["namespace"], "instance": ed["instance"], "txPower": ed["tx_power_0m"]})
    if frame == "TLM":
        return ("eddystone-tlm", {"batteryMillivolts": ed["battery_mv"], "celsius": ed["temperature_c"],
                                  "advCount": ed["adv_count"], "uptimeTenths": ed["uptime_0_1s"]})
    return ("eddystone-" + frame.lower().replace(" ", "-"), None)   # an unknown frame: nothing decoded


def same_value(got, want):
    if isinstance(want, str) and isinstance(got, str):
        return hexid(got) == hexid(want) if re.fullmatch(r"[0-9a-fA-F-]+", want) else got == want
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        return abs(got - want) < 0.01
    return got == want


def beacon(v, d):
    fails = []
    for kind, want in expected_beacons(v):
        if want is None:
            if kind.startswith("eddystone-"):
                bad = [f for f in d.get("frames") or [] if f["kind"].startswith("eddystone")]
            else:
                bad = frames(d, kind)
            if bad:
                fails.append(f"{kind} decoded where the vector has none: {bad[0]['text']}")
            continue
        found = frames(d, kind)
        if not found:
            fails.append(f"no {kind} frame (frames: {[f['kind'] for f in d.get('frames') or []]})")
            continue
        value = found[0]["value"]
        for k, w in want.items():
            if w is None and k != "reserved":
                continue
            if not same_value(value.get(k), w):
                fails.append(f"{kind}.{k} {value.get(k)!r} != {w!r}")
    return fails


# MARK: BTHome and encryption

def bthome(v, d):
    """Every measurement upstream asserts: bthome-ble's "Temperature 2" is the second
    `temperature` of the frame, "Packet Id" is `packet_id`; ble_monitor's readings by name."""
    found = frames(d, "bthome")
    if not found:
        return ["no bthome frame"]
    value = found[0]["value"]
    fails = []
    want = {}
    for name, w in ((v["expect"].get("bthome") or {}).get("values") or {}).items():
        words = name.lower().split(" ")
        index = None
        if len(words) > 1 and words[-1].isdigit():
            index = int(words.pop()) - 1
        want[("_".join(words), index)] = w
    bm = v["expect"].get("ble_monitor") or {}
    for k in ("temperature", "humidity", "text", "battery"):
        if k in bm:
            want[(k, None)] = bm[k]
    for (key, index), w in want.items():
        got = value.get(key)
        if isinstance(got, list):
            got = got[index or 0] if len(got) > (index or 0) else None
        elif index not in (None, 0):
            got = None
        if not same_value(got, w):
            fails.append(f"bthome.{key}{'' if index is None else f'[{index}]'} {got!r} != {w!r}")
    return fails


def encrypted(v, d):
    if any(f["value"].get("encrypted") is True for f in d.get("frames") or []):
        return []
    return [f"encrypted payload not flagged (frames: {[f['kind'] for f in d.get('frames') or []]})"]


def raw(v, decoded):
    """`bleexplr decode` of the vector's raw AD bytes (each chunk on its own, as the
    dataset split them) gives the facts the dataset's BlueZ-style fields hold."""
    if decoded is None:
        return ["decode failed"]
    fails = []
    # Only what the bytes carry: two Inkbird vectors take their name and UUID from the
    # upstream test's other inputs (the dataset's README says so), not from raw.
    types = {st["type"] for st in decoded.get("structures") or []}
    if (types & {0x08, 0x09} or v.get("local_name") is None) and decoded.get("localName") != v.get("local_name"):
        fails.append(f"localName {decoded.get('localName')!r} != {v.get('local_name')!r}")
    if decoded.get("txPower") != v.get("tx_power"):
        fails.append(f"txPower {decoded.get('txPower')!r} != {v.get('tx_power')!r}")
    want = {"%04x" % int(k): h for k, h in (v.get("manufacturer_data") or {}).items()}
    if decoded.get("manufacturerData") != want:
        fails.append(f"manufacturerData {decoded.get('manufacturerData')} != {want}")
    if decoded.get("serviceData") != (v.get("service_data") or {}):
        fails.append(f"serviceData {decoded.get('serviceData')} != {v.get('service_data')}")
    if (types & set(range(0x02, 0x08)) or not v.get("service_uuids")) and \
            sorted(set(decoded.get("serviceUUIDs") or [])) != sorted(set(v.get("service_uuids") or [])):
        fails.append(f"serviceUUIDs {decoded.get('serviceUUIDs')} != {v.get('service_uuids')}")
    return fails


def decode(binary, v):
    chunks = v.get("raw_ad_chunks") or [v["raw_ad"]]
    out = subprocess.run([binary, "decode", *chunks, "--json"], capture_output=True, text=True, timeout=30)
    return json.loads(out.stdout) if out.returncode == 0 and out.stdout.strip() else None


def tiers(v):
    out = ["generic"]
    if v.get("raw_ad") or v.get("raw_ad_chunks"):
        out.append("raw")
    if expected_beacons(v):
        out.append("beacon")
    if v["category"] == "bthome" and not v.get("encrypted"):
        out.append("bthome")
    if v["category"] == "bthome" and v.get("encrypted") and v.get("bindkey") and MAC.match(v.get("address") or ""):
        out.append("decrypted")
    if v.get("encrypted"):
        out.append("encrypted")
    return out


def decrypted(v, d):
    found = frames(d, "bthome")
    if not found or found[0]["value"].get("decrypted") is not True:
        return ["not opened with the vector's bind key"]
    return bthome(v, d)


CHECKS = {"generic": generic, "raw": raw, "beacon": beacon, "bthome": bthome, "decrypted": decrypted, "encrypted": encrypted}


def main(argv):
    binary, adverts = argv[1], argv[2]
    floors = dict((a.split("=", 1)[0], float(a.split("=", 1)[1])) for i, a in enumerate(argv) if i > 0 and argv[i - 1] == "--floor")
    verbose = "--verbose" in argv
    with open(adverts, encoding="utf-8") as f:
        vectors = json.load(f)
    devices = {}
    for run in batches(vectors):
        got = scan(binary, run)
        for a, v in run.items():
            devices[v["id"]] = got.get(a)
    invalid = 0
    if "--schema" in argv:
        import jsonschema
        with open(argv[argv.index("--schema") + 1], encoding="utf-8") as f:
            schema = json.load(f)
        schema.pop("oneOf")
        schema["$ref"] = "#/$defs/device"
        validator = jsonschema.Draft202012Validator(schema)
        for vid, d in devices.items():
            for err in validator.iter_errors(d or {}):
                print(f"schema    {vid}: {err.json_path}: {err.message}")
                invalid += 1
        print(f"schema    {len(devices)} device lines, {invalid} errors")
    counts, failures = {}, []
    for v in vectors:
        d = devices[v["id"]]
        for tier in tiers(v):
            n, ok = counts.get(tier, (0, 0))
            if tier == "raw":
                fails = raw(v, decode(binary, v))
            else:
                fails = CHECKS[tier](v, d) if d else ["not in the scan output"]
            counts[tier] = (n + 1, ok + (not fails))
            failures += [f"{tier:9s} {v['id']}: {x}" for x in fails]
    low = []
    for tier in CHECKS:
        n, ok = counts.get(tier, (0, 0))
        pct = 100.0 * ok / n if n else 100.0
        floor = floors.get(tier)
        print(f"{tier:9s} {ok:3d} of {n:3d} vectors fully decoded ({pct:.1f} %)" + (f", floor {floor:.0f} %" if floor is not None else ""))
        if floor is not None and pct < floor:
            low.append(tier)
    if verbose or low:
        for line in failures:
            print("  " + line)
    return 1 if low or invalid else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
