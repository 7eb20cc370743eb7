# Peripherals with their own security manager, for the pairing tests: Bumble hosts (GATT server + SMP) on
# Bumble controllers of the lab's LocalLink, inside the bumble_ctrl.py process (they are no kernel adapters:
# bluetoothd never sees them, so its one default agent answers only the central's side of a pairing).
# Imported by bumble_ctrl.py (runs under /opt/bumble/bin/python); copied to /xfer/guest/ at `lab.sh up`.
#
#   "Lab Lock JW"       F0:F1:F2:F3:F5:01  NoInputNoOutput: Just Works
#   "Lab Lock Passkey"  F0:F1:F2:F3:F5:02  DisplayOnly, shows the fixed passkey 123456: passkey entry
#   "Lab Lock Compare"  F0:F1:F2:F3:F5:03  DisplayYesNo, says yes to the number: numeric comparison (LE SC)
#   "Lab Lock Reject"   F0:F1:F2:F3:F5:04  refuses every pairing (its delegate's accept() says no: SMP
#                                          Pairing Failed 0x05, Pairing Not Supported)
#
# Each serves 6c616273-0000-4000-8000-00000000c000 with
#   ...c001  read + write, both need an encrypted link (ATT 0x0f until paired)   value b"encrypted"
#   ...c002  read, needs an authenticated (MITM) link (ATT 0x05)                 value b"authenticated"
# Bonds stay in the process's memory (the whole lab run). What each peer saw is in /xfer/state/peers.json:
# pairings (completed), failures, shown (the passkey displayed), compared (numbers said yes to), connections,
# refused (pairing requests the delegate said no to).
#
# One more Bumble host, no security at all, for long writes: "Lab Small MTU" F0:F1:F2:F3:F5:05 answers every
# Exchange MTU with 23 (GATT server max_mtu), so a value over 20 bytes needs Prepare/Execute Write. It serves
# 6c616273-0000-4000-8000-00000000d000 with ...d001: read, write, reliable write (0x2900 says so), any value
# up to 512 bytes, initially b"short". Its connections count in peers.json too.
import json, logging, os
from bumble import hci
from bumble.controller import Controller
from bumble.device import Device
from bumble.gatt import GATT_CHARACTERISTIC_EXTENDED_PROPERTIES_DESCRIPTOR, Characteristic, Descriptor, Service
from bumble.att import AttributeValue
from bumble.host import Host
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.transport.common import AsyncPipeSink

log = logging.getLogger('lab.peers')
SVC = '6c616273-0000-4000-8000-00000000c000'
ENC = '6c616273-0000-4000-8000-00000000c001'
AUTH = '6c616273-0000-4000-8000-00000000c002'
PASSKEY = 123456
IO = PairingDelegate.IoCapability
PEERS = [('Lab Lock JW', 'F0:F1:F2:F3:F5:01', IO.NO_OUTPUT_NO_INPUT),
         ('Lab Lock Passkey', 'F0:F1:F2:F3:F5:02', IO.DISPLAY_OUTPUT_ONLY),
         ('Lab Lock Compare', 'F0:F1:F2:F3:F5:03', IO.DISPLAY_OUTPUT_AND_YES_NO_INPUT),
         ('Lab Lock Reject', 'F0:F1:F2:F3:F5:04', IO.KEYBOARD_INPUT_ONLY)]
REJECTS = {'Lab Lock Reject'}
SMALL = ('Lab Small MTU', 'F0:F1:F2:F3:F5:05')
SMALL_SVC = '6c616273-0000-4000-8000-00000000d000'
SMALL_CHAR = '6c616273-0000-4000-8000-00000000d001'
SMALL_MTU = 23
STATE = '/xfer/state/peers.json'
state = {}


def save():
    tmp = STATE + '.tmp'
    with open(tmp, 'w') as f:
        json.dump(state, f)
    os.replace(tmp, STATE)


class Delegate(PairingDelegate):
    def __init__(self, name, io):
        super().__init__(io_capability=io)
        self.name = name

    async def accept(self):
        if self.name not in REJECTS:
            return True
        state[self.name]['refused'] += 1
        save()
        print('peer %s refuses a pairing request' % self.name, flush=True)
        return False

    async def generate_passkey(self):
        return PASSKEY

    async def display_number(self, number, digits=6):
        state[self.name]['shown'].append('%06d' % number)
        save()
        print('peer %s displays %06d' % (self.name, number), flush=True)

    async def compare_numbers(self, number, digits=6):
        state[self.name]['compared'].append('%06d' % number)
        save()
        print('peer %s compares %06d: yes' % (self.name, number), flush=True)
        return True


async def advertise(d, name):
    await d.power_on()
    adv = bytes([2, 0x01, 0x06, len(name) + 1, 0x09]) + name.encode()
    await d.start_advertising(own_address_type=hci.OwnAddressType.PUBLIC, auto_restart=True,
                              advertising_data=adv, advertising_interval_min=1000, advertising_interval_max=1280)


async def small_mtu(link):
    """"Lab Small MTU": ATT MTU 23 whatever the central asks, a characteristic for long and reliable writes.
    peers.json counts what arrived: writes (each value written, hex), prepared (Prepare Write Requests),
    executed (Execute Write Requests that commit), mtu (each MTU the link settled on)."""
    name, address = SMALL
    state[name] = {'address': address, 'connections': 0, 'mtu': [], 'writes': [], 'prepared': 0, 'executed': 0}
    c = Controller('P' + address[-2:], link=link, public_address=address)
    d = Device(name=name, address=hci.Address(address), host=Host(c, AsyncPipeSink(c)))
    d.gatt_server.max_mtu = SMALL_MTU
    value = [b'short']

    def write(conn, v):
        value[0] = bytes(v)
        state[name]['writes'].append(value[0].hex())
        save()
        print('peer %s: %d bytes written' % (name, len(v)), flush=True)
    props = Characteristic.Properties
    d.add_service(Service(SMALL_SVC, [
        Characteristic(SMALL_CHAR, props.READ | props.WRITE | props.EXTENDED_PROPERTIES,
                       Characteristic.READABLE | Characteristic.WRITEABLE,
                       AttributeValue(read=lambda conn: value[0], write=write),
                       descriptors=[Descriptor(GATT_CHARACTERISTIC_EXTENDED_PROPERTIES_DESCRIPTOR,
                                               Descriptor.READABLE, bytes([0x01, 0x00]))]),   # reliable write
    ]))
    server = d.gatt_server
    prepare, execute = server.on_att_prepare_write_request, server.on_att_execute_write_request

    def on_prepare(bearer, request):
        state[name]['prepared'] += 1
        save()
        return prepare(bearer, request)

    def on_execute(bearer, request):
        if request.flags:
            state[name]['executed'] += 1
            save()
        return execute(bearer, request)
    # the server finds its handlers by name on itself (on_gatt_pdu: getattr)
    server.on_att_prepare_write_request, server.on_att_execute_write_request = on_prepare, on_execute

    def on_connection(conn):
        state[name]['connections'] += 1
        save()

        def mtu():
            state[name]['mtu'].append(conn.att_mtu)
            save()
            print('peer %s: ATT MTU %d' % (name, conn.att_mtu), flush=True)
        conn.on('connection_att_mtu_update', mtu)
    d.on('connection', on_connection)
    await advertise(d, name)
    print('peer %s %s (ATT MTU %d) advertising' % (name, address, SMALL_MTU), flush=True)
    return (c, d)


async def start(link):
    """Starts every peer on `link` (the LocalLink of the kernel's controllers); returns what to keep alive."""
    keep = []
    for name, address, io in PEERS:
        state[name] = {'address': address, 'pairings': 0, 'failures': [], 'shown': [], 'compared': [], 'connections': 0,
                       'refused': 0}
        c = Controller('P' + address[-2:], link=link, public_address=address)
        d = Device(name=name, address=hci.Address(address), host=Host(c, AsyncPipeSink(c)))
        delegate = Delegate(name, io)
        d.pairing_config_factory = lambda conn, delegate=delegate: PairingConfig(sc=True, mitm=True, bonding=True,
                                                                                 delegate=delegate)
        d.add_service(Service(SVC, [
            Characteristic(ENC, Characteristic.Properties.READ | Characteristic.Properties.WRITE,
                           Characteristic.READ_REQUIRES_ENCRYPTION | Characteristic.WRITE_REQUIRES_ENCRYPTION,
                           b'encrypted'),
            Characteristic(AUTH, Characteristic.Properties.READ, Characteristic.READ_REQUIRES_AUTHENTICATION,
                           b'authenticated'),
        ]))

        def on_connection(conn, name=name):
            state[name]['connections'] += 1
            save()

            def paired(keys, name=name):
                state[name]['pairings'] += 1
                save()
                print('peer %s paired (authenticated=%s)' % (name, getattr(keys.ltk, 'authenticated', '?')), flush=True)

            def failed(reason, name=name):
                state[name]['failures'].append(str(reason))
                save()
                print('peer %s pairing failed: %s' % (name, reason), flush=True)
            conn.on('pairing', paired)
            conn.on('pairing_failure', failed)
        d.on('connection', on_connection)
        await advertise(d, name)
        keep.append((c, d))
        print('peer %s %s (%s) advertising' % (name, address, io.name), flush=True)
    keep.append(await small_mtu(link))
    save()
    print('peers ready', flush=True)   # stage2 waits for this line before it says the lab is ready
    return keep
