"""Reads a btmon capture (btsnoop, monitor format: `btmon -w FILE`) to tell which ATT bearers
carried what: the L2CAP credit-based channels opened on the EATT PSM (0x0027) and accepted, and
the ATT notifications each kind of bearer carried. Written for the lab: `btmon -r` of 5.66
crashes on long captures, so the file is taken apart here.

Format: a 16-byte header ("btsnoop\\0", version, datalink 2001 = Linux monitor), then records of
original length, included length, flags (controller index << 16 | monitor opcode), drops and a
timestamp (all big endian), each followed by its packet. Opcodes 4/5: ACL data sent/received."""
import struct

EATT_PSM = 0x0027
ACL_TX, ACL_RX = 4, 5   # BTSNOOP_OPCODE_ACL_TX_PKT / _RX_PKT (BlueZ src/shared/btsnoop.h)
ATT_CID, LE_SIGNALING_CID = 0x0004, 0x0005
NOTIFY, MULTI_NOTIFY, INDICATE = 0x1B, 0x23, 0x1D


def records(path):
    """(controller index, opcode, seconds, packet) for every record of the capture (seconds from
    the capture's timestamp in microseconds)."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'btsnoop\0':
        raise ValueError('%s is not a btsnoop file' % path)
    at = 16
    while at + 24 <= len(data):
        _, incl, flags, _, ts = struct.unpack_from('>IIIIq', data, at)
        at += 24
        yield flags >> 16, flags & 0xFFFF, ts / 1e6, data[at:at + incl]
        at += incl


def l2cap_frames(path):
    """(index, opcode, cid, payload, seconds) of every whole L2CAP frame, ACL fragments put
    together (seconds: its last fragment's)."""
    partial = {}
    for index, op, ts, pkt in records(path):
        if op not in (ACL_TX, ACL_RX) or len(pkt) < 4:
            continue
        hf, _ = struct.unpack_from('<HH', pkt)
        handle, pb, body = hf & 0x0FFF, (hf >> 12) & 0x3, pkt[4:]
        key = (index, op, handle)
        if pb == 0x1:   # continuation
            if key not in partial:
                continue
            partial[key] += body
        else:
            partial[key] = body
        buf = partial[key]
        if len(buf) >= 4:
            n, cid = struct.unpack_from('<HH', buf)
            if len(buf) >= 4 + n:
                del partial[key]
                yield index, op, cid, buf[4:4 + n], ts


def eatt_report(path):
    """What the capture shows: EATT connection requests and acceptances (both the LE
    credit-based kind, code 0x14/0x15, and the enhanced kind, 0x17/0x18), and the ATT
    notifications sent (ACL TX) on the fixed ATT channel and on the dynamic (EATT) ones.
    Only what hosts sent is counted (each packet is seen again where it is received)."""
    r = {'requests': 0, 'accepted': 0, 'channels': set(), 'fixed': 0, 'eatt': 0, 'multiple': 0, 'signaling': []}
    eatt_idents = set()
    sdu = {}   # (index, cid) -> [bytes so far, SDU length]
    for index, op, cid, p, _ in l2cap_frames(path):
        if op != ACL_TX:
            continue
        if cid == LE_SIGNALING_CID and len(p) >= 4:
            code, ident = p[0], p[1]
            if 0x14 <= code <= 0x1A:   # the credit-based connection exchanges, as they went
                r['signaling'].append('hci%d 0x%02x #%d %s' % (index, code, ident, p[4:].hex()))
            if code in (0x14, 0x17) and len(p) >= 6 and struct.unpack_from('<H', p, 4)[0] == EATT_PSM:
                r['requests'] += 1
                eatt_idents.add(ident)
            elif code == 0x15 and len(p) >= 14 and ident in eatt_idents:   # DCID MTU MPS credits result
                dcid, _, _, _, result = struct.unpack_from('<HHHHH', p, 4)
                if result == 0:
                    r['accepted'] += 1
                    r['channels'].add(dcid)
            elif code == 0x18 and len(p) >= 12 and ident in eatt_idents:   # MTU MPS credits result DCID...
                if struct.unpack_from('<H', p, 10)[0] == 0:
                    cids = [c for c in struct.unpack_from('<%dH' % ((len(p) - 12) // 2), p, 12) if c]
                    r['accepted'] += len(cids)
                    r['channels'].update(cids)
            continue
        if cid == ATT_CID:
            count(r, 'fixed', p)
        elif cid >= 0x0040:   # K-frames: the first of an SDU starts with its length
            key = (index, cid)
            if key not in sdu:
                if len(p) < 2:
                    continue
                sdu[key] = [p[2:], struct.unpack_from('<H', p)[0]]
            else:
                sdu[key][0] += p
            if len(sdu[key][0]) >= sdu[key][1]:
                count(r, 'eatt', sdu.pop(key)[0])
    r['channels'] = sorted(r['channels'])
    return r


def count(r, kind, att):
    """Adds an ATT PDU's notifications (one, or the values of a Multiple Handle Value Notification)."""
    if not att:
        return
    if att[0] == MULTI_NOTIFY:
        r['multiple'] += 1
    r[kind] += len(notified_values(att))


def notified_values(att):
    """The values an ATT PDU notifies or indicates: its one, or each of a Multiple Handle Value
    Notification's; none for any other PDU."""
    if not att:
        return []
    if att[0] in (NOTIFY, INDICATE):
        return [att[3:]]
    values, at = [], 1
    while att[0] == MULTI_NOTIFY and at + 4 <= len(att):   # handle, length, value
        n = struct.unpack_from('<H', att, at + 2)[0]
        values.append(att[at + 4:at + 4 + n])
        at += 4 + n
    return values


ATT_NAMES = {0x02: 'Exchange MTU Request', 0x03: 'Exchange MTU Response', 0x0A: 'Read Request',
             0x0C: 'Read Blob Request', 0x12: 'Write Request', 0x16: 'Prepare Write Request',
             0x17: 'Prepare Write Response', 0x18: 'Execute Write Request', 0x19: 'Execute Write Response',
             0x52: 'Write Command', 0x01: 'Error Response'}


def att_sent(path, index):
    """The ATT PDUs controller `index`'s host sent on the fixed ATT channel, in order: (opcode, pdu)."""
    return [(p[0], p) for i, op, cid, p, _ in l2cap_frames(path) if i == index and op == ACL_TX and cid == ATT_CID and p]
