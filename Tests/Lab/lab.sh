#!/usr/bin/env bash
# lab.sh - bleexplr's BlueZ lab: a real bluetoothd with virtual LE controllers inside a small qemu VM
# (a Debian kernel + bluetooth.ko + hci_vhci.ko), plus fixture peripherals. See docs/testing.md.
# LAB_SUITE picks the guest's Debian release, hence its kernel and BlueZ: bookworm (default; 6.1, BlueZ 5.66),
# trixie (6.12, 5.82) or sid (whatever unstable holds the day the image is built; cached like the others).
#
#   build            assemble kernel + rootfs/initramfs under $LAB_CACHE (idempotent; installs host packages)
#   up               boot the VM: dbus, bluetoothd, 8 controllers, example server on hci1, fixtures on hci2-6,
#                    hci7 free for `bleexplr serve` (the peripheral under test)
#   down             stop the VM and remove all run state
#   status           "up: ... ready=yes|no" or "down"
#   exec CMD...      run CMD (bash -c) inside the VM, print its output, exit with its rc
#   env              print export lines: DBUS_SYSTEM_BUS_ADDRESS and BLEEXPLR_LAB_BUS (eval "$(lab.sh env)")
#   bluetoothd kill [SIG] | start | restart   end bluetoothd (SIGTERM by default; waits until no live one is
#                    left) / start it again with stage2's flags (-P plugin list, -d), appending to log/bluetoothd.log
#   linkloss hciN    (bumble) controller N loses its LE links: both hosts see a supervision timeout (0x08)
#   fixture ARGS     drive the fixtures: press | beacon [ibeacon|eddystone] on|off | adv NAME on|off |
#                    stream [FILE] | drop | reset | state
#   guest-bleexplr [VAR=value...] ARGS...   run the bleexplr binary INSIDE the VM on the guest's own system bus
#                    (its Unix socket passes file descriptors, so AcquireNotify's socket works; DBUS_SYSTEM_BUS_ADDRESS
#                    unset). The binary is $BLEEXPLR_BIN (default: this checkout's .build/debug/bleexplr); it goes
#                    into the share with the libraries ldd finds outside /lib and /usr/lib (the Swift runtime), then
#                    into the guest's /tmp/bleexplr, and runs with LD_LIBRARY_PATH (once per boot and build; a library
#                    the guest lacks ends it with status 127 and its name). Leading VAR=value go to its environment
#                    (BLEEXPLR_NOTIFY=start). Files for --record / --output: /xfer/bleexplr/run/ in the guest,
#                    $LAB_CACHE/run/xfer/bleexplr/run/ on the host. stdout streams; stderr comes after it ends; the exit
#                    status is bleexplr's (124: LAB_GUEST_TIMEOUT s, default 120, ran out and it got SIGTERM);
#                    LAB_GUEST_TIMES=1 adds a last stderr line "lab-guest-times: user 0m1.2s sys 0m0.3s" (its CPU time);
#                    LAB_GUEST_PIDFILE=NAME writes its pid to /xfer/bleexplr/run/NAME.pid (to end it: kill -TERM)
#   logs [NAME...]   guest logs (default: stage2 bluetoothd fixtures; also btmon, bumble, gatt-server, ...)
#   console          VM serial console + stage2 log
#   cache-dir        print the cache directory (the top one: run state and test output live there)
#   versions         "suite=... kernel=... bluez=..." of the image (built or not: "not built")
#   central-demo     bluetoothctl central session on hci0 inside the VM (scan/connect/read/notify/write)
#   host-demo        the same from the HOST over the VM's system bus (host_central.py, python3-dbus over TCP)
#
# Controllers: hci0 = the central (program under test), hci1 = BlueZ's example-gatt-server +
# example-advertisement, hci2 "Lab iTag", hci3 "Lab Stream", hci4 "Lab Dropper", hci5 iBeacon,
# hci6 Eddystone-URL (guest/fixtures.py), hci7 left free for `bleexplr serve`. One controller per peripheral: bluetoothd keeps one GATT
# database and one public address per adapter, so peripherals sharing a controller would merge.
# With bumble, three more peripherals on the same radio link are Bumble hosts with their own security manager
# (guest/bumble_peers.py: "Lab Lock JW", "Lab Lock Passkey" showing 123456, "Lab Lock Compare"), for pairing:
# bluetoothd does not see them as adapters, so its default agent answers only the central's side.
#
# Host programs reach the VM's system bus at tcp:host=127.0.0.1,port=$LAB_DBUS_PORT (ANONYMOUS auth,
# libdbus/GDBus only; sd-bus/busctl cannot, it only speaks EXTERNAL). The fixtures' control API is on
# the same bus: org.bleexplr.Lab /org/bleexplr/Lab org.bleexplr.Lab.Fixtures1.
#
# Env: LAB_SUITE (bookworm|trixie|sid, default bookworm): bookworm's image lives in $LAB_CACHE itself (as it always
#        did), any other suite's in $LAB_CACHE/<suite>/; the run state ($LAB_CACHE/run) is shared: one VM at a time.
#        A sid build that fails says "SID IMAGE DID NOT BUILD: why" (the day's unstable, not bleexplr) and keeps
#        the last good sid image when there is one (LAB_SID_REFRESH=1 rebuilds it from today's unstable).
#      LAB_CACHE (default ~/.cache/bleexplr-lab), LAB_DBUS_PORT (17777), LAB_MEM (MiB, default 640),
#      LAB_ACCEL (auto|kvm|tcg), LAB_TB_MB (TCG translation cache, 128), LAB_NCTRL (controllers, 8)
#      LAB_CONTROLLERS (bumble|btvirt, default bumble): who emulates the LE controllers behind /dev/vhci.
#        bumble: Google Bumble (pinned in bumble-requirements.txt, venv /opt/bumble in the rootfs) controllers on
#                one LocalLink: RSSI -50, continuous advertising, stable addresses F0:F1:F2:F3:F4:0N.
#                LAB_BUMBLE_RSSI: "-50" (fixed) or "-70:-40" (random per report); LAB_BUMBLE_LOG: log level.
#        btvirt: BlueZ's emulator (no PyPI needed); RSSI always 127 (invalid: any RSSI discovery filter drops
#                it), one report per advertising enable, so every advert is re-registered each LAB_ADV_KICK s,
#                and non-connectable beacons get a new random address each time.
#      LAB_ADV_KICK (seconds; default 1 for btvirt, 0 = off for bumble), LAB_BTMON=1 (btmon -w log/btmon.snoop),
#      LAB_BLUETOOTHD_DEBUG=1 (bluetoothd -d), LAB_EATT=1 (EATT on; off by default, see stage2),
#      LAB_BOOT_TIMEOUT (s, 300), LAB_EXEC_TIMEOUT (s, 600)
set -euo pipefail

LAB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Build and run state go to LAB_CACHE (this folder may be read-only).
SUITE="${LAB_SUITE:-bookworm}"
case "$SUITE" in bookworm|trixie|sid) ;; *) echo "LAB_SUITE must be bookworm, trixie or sid (got '$SUITE')" >&2; exit 2 ;; esac
CACHE_TOP="${LAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bleexplr-lab}"
if [ "$SUITE" = bookworm ]; then CACHE="$CACHE_TOP"; else CACHE="$CACHE_TOP/$SUITE"; fi
set_paths() { ROOTFS="$CACHE/rootfs"; KDIR="$CACHE/kernel"; INITRD="$CACHE/initrd.img"; KERNEL="$CACHE/vmlinuz"; }
set_paths
RUN="$CACHE_TOP/run"                  # one VM at a time, whatever its suite
XFER="$RUN/xfer"
PORT="${LAB_DBUS_PORT:-17777}"
MEM="${LAB_MEM:-640}"
PKGS="dbus,bluez,bluez-test-tools,bluez-test-scripts,python3-dbus,python3-gi,python3-venv,kmod,busybox,procps"
# btvirt (emulator/btdev) needs AF_ALG ecb(aes)+cmac(aes); without them it fails with the misleading
# "Failed to open Virtual HCI device".
# SMP (pairing) needs ECDH, whose self-test needs the default RNG: drbg with hmac(sha512). Built into 6.12;
# bookworm's 6.1 has them as modules, and without them every adapter logs "Unable to create ECDH crypto context".
MODS="virtio_pci sha512_generic ctr drbg bluetooth hci_vhci 9p 9pnet_virtio virtio_net virtio_console af_alg algif_hash algif_skcipher ecb cmac"
HOST_PY=/usr/bin/python3     # Debian python (has python3-dbus / python3-gi), not a pyenv shim
CONTROLLERS="${LAB_CONTROLLERS:-bumble}"
# hci0 central, hci1 BlueZ example server, hci2.. one per fixture peripheral (guest/fixtures.py: FIXTURES)
NCTRL="${LAB_NCTRL:-8}"
case "$CONTROLLERS" in btvirt|bumble) ;; *) echo "LAB_CONTROLLERS must be btvirt or bumble" >&2; exit 2 ;; esac
BUMBLE_REQ="$LAB_DIR/bumble-requirements.txt"   # pinned bumble + dependencies
if [ "$CONTROLLERS" = bumble ]; then ADV_KICK="${LAB_ADV_KICK:-0}"; else ADV_KICK="${LAB_ADV_KICK:-1}"; fi

log() { printf '[lab %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ---------------------------------------------------------------- build
host_suite() { ( . /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-}" ); }

mirror_url() {
  # Read the Debian mirror from apt's own configuration at run time (deb822 or one-line format). A suite the
  # host's apt does not list (trixie or sid on a bookworm host) comes from the mirror of the host's own suite.
  local u="" s
  for s in "$SUITE" "$(host_suite)"; do
    [ -n "$s" ] || continue
    if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
      u=$(awk '/^URIs:/{uri=$2} /^Suites:/{for(i=2;i<=NF;i++) if($i=="'$s'") {print uri; exit}}' \
          /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
    fi
    if [ -z "$u" ] && [ -f /etc/apt/sources.list ]; then
      u=$(awk '$1=="deb" && $3=="'$s'" {print $2; exit}' /etc/apt/sources.list)
    fi
    [ -n "$u" ] && break
  done
  [ -n "$u" ] || die "cannot find a Debian mirror for $SUITE in the apt configuration"
  echo "$u"
}

apt_has() {  # apt_has PKG: true if apt knows a candidate version for PKG
  local c; c=$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/{print $2}')
  [ -n "$c" ] && [ "$c" != "(none)" ]
}

need_root() { [ "$(id -u)" = 0 ] || die "$* needs root (apt-get, debootstrap, chroot); run as root or build once as root"; }

apt_install() {  # apt_install PKG...: apt-get update first when any of them is unknown to apt
  need_root "installing host packages ($*)"
  local p upd=0
  for p in "$@"; do apt_has "$p" || upd=1; done
  [ $upd = 0 ] || { log "apt-get update"; apt-get update -q >/dev/null || die "apt-get update failed"; }
  log "installing host packages: $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null \
    || die "apt-get install $* failed"
}

host_deps() {
  local need=()
  command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
  command -v debootstrap >/dev/null || need+=(debootstrap)
  command -v cpio >/dev/null || need+=(cpio)
  command -v zstd >/dev/null || need+=(zstd)
  command -v depmod >/dev/null || need+=(kmod)
  [ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || need+=(debian-archive-keyring)
  $HOST_PY -c 'import dbus, gi' 2>/dev/null || need+=(python3-dbus python3-gi)
  [ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"
  # the host suite's kernel is resolved through the host's apt-cache: its package lists must be there
  if [ "$SUITE" = "$(host_suite)" ]; then
    apt_has linux-image-amd64 || { log "apt-get update"; apt-get update -q >/dev/null || die "apt-get update failed"; }
  fi
}

chroot_apt_lists() {   # the slimmed rootfs has no package lists: fetch them again when needed
  [ -n "$(ls "$ROOTFS"/var/lib/apt/lists/*_Packages 2>/dev/null)" ] && return 0
  cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
  # Valid-Until off: a mirror that serves a frozen sid (a snapshot) is still the sid to test
  chroot "$ROOTFS" apt-get -o Acquire::Check-Valid-Until=false update -q >> "$CACHE/apt-chroot.log" 2>&1 \
    || { tail -20 "$CACHE/apt-chroot.log"; die "apt-get update in the $SUITE rootfs failed"; }
}

kmod_root() {  # where the kernel package put lib/modules (/lib on bookworm, /usr/lib since trixie): for modprobe -d
  if [ -d "$KDIR/x/lib/modules" ]; then echo "$KDIR/x"; else echo "$KDIR/x/usr"; fi
}

build_kernel() {
  [ -f "$KERNEL" ] && [ -f "$KDIR/.ok" ] && return 0
  rm -rf "$KDIR"; mkdir -p "$KDIR"
  local pkg p pkgs=() inroot=0
  if [ "$SUITE" = "$(host_suite)" ]; then
    log "fetching kernel package (host apt, $SUITE)"
    pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
  else
    # another suite's kernel: resolved and downloaded by the rootfs's own apt (its sources are $SUITE's)
    log "fetching kernel package ($SUITE, apt inside the rootfs)"
    chroot_apt_lists; inroot=1
    pkg=$(chroot "$ROOTFS" apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
  fi
  [ -n "$pkg" ] || die "cannot resolve linux-image-amd64 ($SUITE)"
  # Since 7.x (sid, 2026) linux-image-X is an empty package: the kernel is in linux-binary-X, the modules in
  # linux-modules-X, modules.builtin & co in linux-base-X. Take whichever of them exist.
  pkgs=("$pkg")
  for p in linux-binary linux-base linux-modules; do
    p="${pkg/linux-image/$p}"
    if [ $inroot = 1 ]; then chroot "$ROOTFS" apt-cache show "$p" >/dev/null 2>&1 && pkgs+=("$p")
    else apt-cache show "$p" >/dev/null 2>&1 && pkgs+=("$p"); fi
  done
  if [ $inroot = 1 ]; then
    cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
    chroot "$ROOTFS" sh -c "cd /tmp && apt-get -q download ${pkgs[*]}" >> "$CACHE/apt-chroot.log" 2>&1 || die "apt-get download ${pkgs[*]} ($SUITE) failed"
    mv "$ROOTFS"/tmp/linux-*.deb "$KDIR/"
  else
    (cd "$KDIR" && apt-get -q -o APT::Sandbox::User=root download "${pkgs[@]}" >/dev/null) || die "apt-get download ${pkgs[*]} failed"
  fi
  for p in "$KDIR"/*.deb; do dpkg-deb -x "$p" "$KDIR/x"; done
  local vmlinuz; vmlinuz=$(ls "$KDIR"/x/boot/vmlinuz-* "$KDIR"/x/usr/lib/modules/*/vmlinuz "$KDIR"/x/lib/modules/*/vmlinuz 2>/dev/null | head -1 || true)
  [ -n "$vmlinuz" ] || die "no vmlinuz in ${pkgs[*]} ($SUITE): the kernel's packaging changed again"
  cp "$vmlinuz" "$KERNEL"
  basename "$(kmod_root)"/lib/modules/* > "$KDIR/version"
  local kmods; kmods="$(kmod_root)/lib/modules/$(cat "$KDIR/version")"
  ls "$kmods"/kernel/drivers/bluetooth/hci_vhci.ko* >/dev/null 2>&1 || grep -q hci_vhci "$kmods/modules.builtin" 2>/dev/null ||
    die "kernel $(cat "$KDIR/version") ($SUITE) has no hci_vhci (packages: ${pkgs[*]})"
  echo "${pkgs[*]}" > "$KDIR/package"
  rm -f "$KDIR"/*.deb
  touch "$KDIR/.ok"
}

build_rootfs() {
  if [ ! -f "$ROOTFS/.debootstrap-ok" ]; then
    need_root "building the VM's root file system"
    local m; m=$(mirror_url)
    log "debootstrap $SUITE from $m (minbase + $PKGS)"
    rm -rf "$ROOTFS"; mkdir -p "$CACHE"
    debootstrap --variant=minbase --include="$PKGS" "$SUITE" "$ROOTFS" "$m" > "$CACHE/debootstrap.log" 2>&1 \
      || { tail -20 "$CACHE/debootstrap.log"; die "debootstrap $SUITE failed: $(grep -E '^[EW]:' "$CACHE/debootstrap.log" | tail -1)"; }
    echo "$SUITE $(date -u +%FT%TZ)" > "$ROOTFS/.debootstrap-ok"
  fi
  # what this image runs, for every run's banner (the slimming below removes dpkg's docs, not its status)
  chroot "$ROOTFS" dpkg-query -W -f='${Version}\n' bluez > "$CACHE/bluez-version" 2>/dev/null || echo unknown > "$CACHE/bluez-version"
  # BlueZ's own ChangeLog (Debian ships the upstream one): what changed for clients, read in docs/testing.md
  local cl
  for cl in "$ROOTFS"/usr/share/doc/bluez/changelog.gz "$ROOTFS"/usr/share/doc/bluez/ChangeLog.gz; do
    [ -f "$cl" ] && { cp "$cl" "$CACHE/bluez-ChangeLog.gz"; break; }
  done
  return 0
}

build_modules() {
  local kv; kv=$(cat "$KDIR/version")
  local dst="$ROOTFS/lib/modules/$kv" mr; mr=$(kmod_root)
  [ -f "$dst/.ok" ] && [ "$(cat "$dst/.ok")" = "$MODS" ] && return 0
  log "copying kernel modules ($MODS) for $kv"
  rm -rf "$dst"; mkdir -p "$dst"
  [ -f "$mr/lib/modules/$kv/modules.dep" ] || depmod -b "$mr" "$kv"
  local m f
  for m in $MODS; do   # built-in ones print "builtin ...", not insmod: nothing to copy
    modprobe -d "$mr" -S "$kv" --show-depends "$m" > "$CACHE/.deps" 2>/dev/null || true
    awk '$1=="insmod"{print $2}' "$CACHE/.deps"
  done | sort -u | while read -r f; do
    rel=${f#"$mr/lib/modules/$kv/"}
    mkdir -p "$dst/$(dirname "$rel")"; cp "$f" "$dst/$rel"
  done
  rm -f "$CACHE/.deps"
  for m in $MODS; do
    modprobe -d "$mr" -S "$kv" --show-depends "$m" >/dev/null 2>&1 || log "note: kernel $kv has no module '$m' (neither built in)"
  done
  cp "$mr/lib/modules/$kv"/modules.{order,builtin,builtin.modinfo} "$dst/" 2>/dev/null || true
  depmod -b "$ROOTFS" "$kv"
  echo "$MODS" > "$dst/.ok"
}

build_bumble() {
  # Bumble (pure python + cryptography wheel) in a venv inside the rootfs. Installed only when
  # LAB_CONTROLLERS=bumble asks for it; once there it stays (the same initrd then serves both modes).
  [ "$CONTROLLERS" = bumble ] || return 0
  local venv="$ROOTFS/opt/bumble" pyv
  local want; want="$(sha1sum < "$BUMBLE_REQ" | cut -d' ' -f1)"
  [ -f "$venv/.ok" ] && [ "$(cat "$venv/.ok")" = "$want" ] && return 0
  log "installing $(grep -o '^bumble==.*' "$BUMBLE_REQ") (+ pinned deps, $(basename "$BUMBLE_REQ")) into the rootfs (chroot venv + pip)"
  cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
  pyv=$(chroot "$ROOTFS" python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])') || die "no python3 in the $SUITE rootfs"
  if [ ! -d "$ROOTFS/usr/lib/python$pyv/ensurepip" ]; then
    chroot_apt_lists
    DEBIAN_FRONTEND=noninteractive chroot "$ROOTFS" apt-get install -y -q --no-install-recommends python3-venv \
      >> "$CACHE/bumble-install.log" 2>&1 || { tail -20 "$CACHE/bumble-install.log"; die "python3-venv install failed"; }
  fi
  rm -rf "$venv"
  chroot "$ROOTFS" python3 -m venv /opt/bumble >> "$CACHE/bumble-install.log" 2>&1 || die "venv failed"
  # A TLS-intercepting proxy's CA lives in the host bundle only: hand it to pip in the chroot. requests
  # prefers REQUESTS_CA_BUNDLE over --cert, so run with a clean environment.
  local ca=/etc/ssl/certs/ca-certificates.crt; [ -f "$ca" ] && cp "$ca" "$ROOTFS/tmp/host-ca.crt"
  cp "$BUMBLE_REQ" "$ROOTFS/tmp/bumble-requirements.txt"
  local v pass=()   # proxy / index settings of the caller still apply inside the chroot
  for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_TRUSTED_HOST; do
    [ -n "${!v:-}" ] && pass+=("$v=${!v}")
  done
  chroot "$ROOTFS" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "${pass[@]}" \
      ${ca:+PIP_CERT=/tmp/host-ca.crt REQUESTS_CA_BUNDLE=/tmp/host-ca.crt SSL_CERT_FILE=/tmp/host-ca.crt} \
      /opt/bumble/bin/pip install -q --no-cache-dir --disable-pip-version-check -r /tmp/bumble-requirements.txt \
      >> "$CACHE/bumble-install.log" 2>&1 || { rm -f "$ROOTFS/tmp/host-ca.crt"; tail -20 "$CACHE/bumble-install.log"; die "pip install of bumble failed (PyPI unreachable? LAB_CONTROLLERS=btvirt needs no PyPI)"; }
  rm -f "$ROOTFS/tmp/host-ca.crt" "$ROOTFS/tmp/bumble-requirements.txt"
  # pip/setuptools are not needed at run time (~25 MB of initrd)
  rm -rf "$venv"/lib/python"$pyv"/site-packages/{pip,setuptools,pkg_resources,_distutils_hack,distutils-precedence.pth}* "$venv"/bin/pip*
  echo "$want" > "$venv/.ok"
}

write_init() {
  # Tiny PID 1: mount the 9p share and hand over to the stage2 script that `up` writes there.
  cat > "$ROOTFS/init" <<'EOF'
#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mkdir -p /dev/pts /run /tmp /xfer; mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /run; mount -t tmpfs tmpfs /tmp
modprobe virtio_pci; modprobe 9pnet_virtio; modprobe 9p
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 xfer /xfer || echo "lab-init: 9p mount failed"
[ -x /xfer/guest/stage2.sh ] && exec /xfer/guest/stage2.sh
echo "lab-init: no stage2, dropping to shell"; exec /bin/sh
EOF
  chmod 755 "$ROOTFS/init"
}

build_initrd() {
  local stamp="$CACHE/.initrd-stamp" want
  want="$(cat "$ROOTFS/.debootstrap-ok" "$KDIR/version" "$ROOTFS/opt/bumble/.ok" 2>/dev/null; sha1sum "$ROOTFS/init" | cut -d' ' -f1; echo "$PKGS $MODS")"
  if [ -f "$INITRD" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return 0; fi
  log "slimming rootfs and packing initramfs"
  # Drop things a headless lab never reads (keep bluez-test-scripts examples).
  find "$ROOTFS/usr/share/doc" -mindepth 1 -maxdepth 1 ! -name 'bluez-test-scripts' -exec rm -rf {} + 2>/dev/null || true
  # (the initramfs must fit the guest's rootfs tmpfs: half of LAB_MEM)
  rm -rf "$ROOTFS"/usr/share/{man,info,locale,i18n} "$ROOTFS"/var/cache/apt/*.bin "$ROOTFS"/var/lib/apt/lists/* \
         "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/usr/lib/udev/hwdb.bin "$ROOTFS"/usr/lib/udev/hwdb.d \
         "$ROOTFS"/usr/share/doc/bluez-test-scripts/examples/*.gz 2>/dev/null || true
  mkdir -p "$ROOTFS/var/lib/bluetooth" "$ROOTFS/xfer"
  echo bleexplr-lab > "$ROOTFS/etc/hostname"
  (cd "$ROOTFS" && find . -xdev ! -path './proc/*' ! -path './sys/*' ! -path './dev/*' -print0 \
     | cpio --null -o -H newc --quiet) | zstd -q -T0 -6 > "$INITRD.tmp"
  mv "$INITRD.tmp" "$INITRD"
  echo "$want" > "$stamp"
}

build_image() {
  local t0=$SECONDS
  mkdir -p "$CACHE"
  host_deps
  build_rootfs      # first: another suite's kernel comes through the rootfs's own apt
  build_kernel
  build_modules
  build_bumble
  write_init
  build_initrd
  [ -f "$CACHE/.built" ] || date -u +%FT%TZ > "$CACHE/.built"
  log "build ($SUITE) done in $((SECONDS - t0))s: $(du -h "$INITRD" | cut -f1) initrd, kernel $(cat "$KDIR/version"), BlueZ $(cat "$CACHE/bluez-version"), $CACHE"
}

SID_FAILED="$CACHE_TOP/sid-build-failed"   # "day reason" of the last sid build that failed; removed when one works

sid_build() {
  # sid is whatever unstable holds today: the image is rebuilt (in a staging folder) once per UTC day, or when
  # LAB_SID_REFRESH=1; LAB_SID_REFRESH=0 keeps any image there is. When today's unstable does not build, the
  # last good image (if any) stays in use and the failure is said loudly, as the distribution's, not bleexplr's.
  local refresh="${LAB_SID_REFRESH:-auto}" today; today=$(date -u +%F)
  if [ -f "$INITRD" ] && [ -f "$CACHE/.built" ]; then
    if [ "$refresh" = 0 ] || { [ "$refresh" = auto ] && [ "$(cut -c1-10 "$CACHE/.built")" = "$today" ]; } ||
       { [ "$refresh" = auto ] && [ "$(cut -d' ' -f1 "$SID_FAILED" 2>/dev/null)" = "$today" ]; }; then
      build_image; return    # cached (incremental: a changed module list or Bumble pin is applied to it)
    fi
  fi
  local stage="$CACHE_TOP/sid.new" blog="$CACHE_TOP/sid-build.log" why
  rm -rf "$stage"
  log "building a sid image from today's Debian unstable ($today) in $stage"
  # its own process: inside an `if` condition set -e would be off, and a failing step would not stop the build
  if LAB_STAGE_DIR="$stage" "$0" build-stage 2>&1 | tee "$blog" >&2; then   # pipefail: the build's status
    rm -rf "$CACHE.old"; [ -d "$CACHE" ] && mv "$CACHE" "$CACHE.old"
    mv "$stage" "$CACHE"; rm -rf "$CACHE.old" "$SID_FAILED"
    return 0
  fi
  why=$(grep -h 'ERROR:' "$blog" | tail -1 | sed 's/.*ERROR: //'); why=${why:-see $blog}
  echo "$today $why" > "$SID_FAILED"
  rm -rf "$stage"
  log "SID IMAGE DID NOT BUILD: $why"
  log "    (this is today's Debian unstable failing to assemble, not bleexplr; full log: $blog)"
  if [ -f "$INITRD" ] && [ -f "$CACHE/.built" ]; then
    log "    using the last sid image that built: $(cat "$CACHE/.built"), BlueZ $(cat "$CACHE/bluez-version"), kernel $(cat "$KDIR/version")"
    build_image
    return 0
  fi
  echo "SID IMAGE DID NOT BUILD: $why"
  exit 3
}

cmd_build() { if [ "$SUITE" = sid ]; then sid_build; else build_image; fi; }

cmd_versions() {   # what the image holds (build time); `up` prints what the guest really runs
  if [ -f "$INITRD" ] && [ -f "$KDIR/version" ]; then
    echo "suite=$SUITE kernel=$(cat "$KDIR/version") bluez=$(cat "$CACHE/bluez-version" 2>/dev/null || echo unknown) built=$(cat "$CACHE/.built" 2>/dev/null || echo unknown)"
  else
    echo "suite=$SUITE not built"
  fi
}


# ---------------------------------------------------------------- guest side (written into the 9p share by `up`)
write_guest() {
  mkdir -p "$XFER"/{guest,cmd,out,log,state}
  cat > "$XFER/guest/stage2.sh" <<EOF
#!/bin/sh
# Runs as PID 1 in the VM (exec'd by /init). Everything it logs lands in the 9p share.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
PORT=$PORT
LAB_ADV_KICK=$ADV_KICK
CONTROLLERS=$CONTROLLERS
LAB_BTMON=${LAB_BTMON:-0}
BUMBLE_LOG=${LAB_BUMBLE_LOG:-WARNING}
BUMBLE_RSSI=${LAB_BUMBLE_RSSI:--50}
NCTRL=$NCTRL
LAST=hci$((NCTRL - 1))
BTD_DEBUG=${LAB_BLUETOOTHD_DEBUG:-0}
EATT_CHANNELS=$([ "${LAB_EATT:-0}" = 1 ] && echo 3 || echo 1)
EOF
  cat >> "$XFER/guest/stage2.sh" <<'EOF'
S=/xfer; L=$S/log
exec >>$L/stage2.log 2>&1
t() { echo "[$(cut -d' ' -f1 /proc/uptime)s] $*"; }
t "stage2 start"
if [ "$CONTROLLERS" = bumble ]; then
  # --- NCTRL Bumble controllers on one LocalLink, each on its own /dev/vhci (hci0..). Started first: importing
  # bumble takes ~10 s under TCG and overlaps with the rest; it waits for /dev/vhci itself. No wait here either:
  # bluetoothd picks the controllers up when they appear and power_on.py waits for all adapters.
  BUMBLE_LOG=$BUMBLE_LOG BUMBLE_RSSI=$BUMBLE_RSSI /opt/bumble/bin/python -u $S/guest/bumble_ctrl.py $NCTRL >> $L/bumble.log 2>&1 &
  echo $! > /run/bumble.pid
fi
for m in sha512_generic ctr drbg bluetooth hci_vhci virtio_net virtio_console af_alg algif_hash algif_skcipher ecb cmac; do modprobe $m || t "modprobe $m failed"; done
busybox ip link set lo up
busybox ip addr add 10.0.2.15/24 dev eth0 && busybox ip link set eth0 up
if [ "$CONTROLLERS" = btvirt ]; then
# --- NCTRL virtual LE controllers. btvirt must write its create request within 1s of opening /dev/vhci,
# else the kernel's vhci open_timeout creates a default controller and btvirt fails ("Failed to open
# Virtual HCI device"); under slow TCG that happens, so start it first and retry.
for try in 1 2 3 4 5; do
  btvirt -L -l$NCTRL >> $L/btvirt.log 2>&1 &
  BTV=$!; n=0
  while [ $n -lt 40 ] && [ ! -e /sys/class/bluetooth/$LAST ] && kill -0 $BTV 2>/dev/null; do sleep 0.25; n=$((n+1)); done
  [ -e /sys/class/bluetooth/$LAST ] && kill -0 $BTV 2>/dev/null && break
  kill $BTV 2>/dev/null; wait $BTV 2>/dev/null; t "btvirt attempt $try failed"; sleep 2
done
fi
[ "$CONTROLLERS" = bumble ] || t "controllers (btvirt): $(ls /sys/class/bluetooth | tr '\n' ' ')"
[ "$LAB_BTMON" = 1 ] && { btmon -w $L/btmon.snoop > /dev/null 2>&1 & }
# --- system bus: normal unix socket + TCP (ANONYMOUS) for the host, permissive policy (lab only!)
mkdir -p /run/dbus /etc/dbus-1
cat > /etc/dbus-1/system-local.conf <<XML
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <listen>tcp:host=0.0.0.0,bind=0.0.0.0,port=$PORT,family=ipv4</listen>
  <auth>ANONYMOUS</auth>
  <allow_anonymous/>
  <policy context="default">
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow send_type="method_call"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
XML
dbus-daemon --system --fork --print-address=1 > $L/dbus-address.txt 2>$L/dbus.log
t "dbus up: $(cat $L/dbus-address.txt)"
if [ "$BTD_DEBUG" = 1 ]; then BTD_OPT=-d; else BTD_OPT=; fi
# EATT off (one ATT bearer, like most real peripherals): with EATT on (Channels = 3), BlueZ 5.66 here now and
# then drops an ATT PDU that did arrive on an EATT channel: a Write Command never reached the GATT app, a
# Handle Multiple Value Notification never became a PropertiesChanged (seen twice in 4 runs). LAB_EATT=1: on.
printf '[General]\n\n[GATT]\nChannels = %s\n' "$EATT_CHANNELS" > /etc/bluetooth/main.conf
# -P: no LE Audio / ranging plugins. Newer bluetoothd serves, on every adapter, services that need encryption
# (BASS Broadcast Receive State since 5.85, the Ranging Service's RAS Features since 5.86), and its client side
# reads them from every peer that has them. Here every peripheral is a bluetoothd adapter, so each connection
# would end in a Security Request and a pairing nobody answers (reads then fail with ATT 0x0e, and the agent of
# the program under test is asked to confirm the PERIPHERAL side's pairing). Real peripherals have none of
# these services; older BlueZ ignores the names it does not have.
BTD_PLUGINS_OFF=rap,bass,bap,mcp,micp,vcp,ccp,csip,tmap,gmap,asha
# The command line, kept for `lab.sh bluetoothd start` (a restart runs the same bluetoothd with the same flags).
echo "/usr/libexec/bluetooth/bluetoothd -n -E -P $BTD_PLUGINS_OFF $BTD_OPT" > $S/state/bluetoothd.cmd
$(cat $S/state/bluetoothd.cmd) > $L/bluetoothd.log 2>&1 &
# what this guest really runs (lab.sh up prints it; tests read it to know what BlueZ they face)
echo "kernel=$(uname -r) bluez=$(/usr/libexec/bluetooth/bluetoothd -v) python=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')" > $S/state/versions
python3 -u $S/guest/power_on.py $NCTRL > $L/power_on.log 2>&1
if [ "$CONTROLLERS" = bumble ]; then
  grep -q '^ready' $L/bumble.log && t "controllers (bumble): $(grep -h '^controller' $L/bumble.log | tr '\n' ' ')" \
    || t "bumble controllers did not come up: $(tail -5 $L/bumble.log)"
fi
t "adapters: $(tr '\n' ' ' < $L/power_on.log)"
# --- peripheral on hci1: BlueZ's own example-gatt-server + example-advertisement, adapter pinned to hci1
EX=/usr/share/doc/bluez-test-scripts/examples
python3 -u $S/guest/pin_adapter.py /org/bluez/hci1 $EX/example-gatt-server > $L/gatt-server.log 2>&1 &
echo $! > /run/gatt-server.pid
python3 -u $S/guest/adv_kick.py /org/bluez/hci1 $EX/example-advertisement $LAB_ADV_KICK > $L/advertisement.log 2>&1 &
echo $! > /run/advertisement.pid
n=0; while [ $n -lt 120 ]; do
  grep -q 'GATT application registered' $L/gatt-server.log && grep -q 'Advertisement registered' $L/advertisement.log && break
  sleep 0.5; n=$((n+1)); done
t "peripheral: $(grep -h 'registered' $L/gatt-server.log $L/advertisement.log | tr '\n' ' ')"
# --- fixture peripherals on hci2.. (one controller each), controlled over D-Bus (org.bleexplr.Lab)
LAB_ADV_KICK=$LAB_ADV_KICK python3 -u $S/guest/fixtures.py > $L/fixtures.log 2>&1 &
echo $! > /run/fixtures.pid
n=0; while [ $n -lt 120 ]; do grep -q 'fixtures ready' $L/fixtures.log && break; kill -0 $(cat /run/fixtures.pid) 2>/dev/null || break
  sleep 0.5; n=$((n+1)); done
t "fixtures: $(grep -h 'fixtures ready' $L/fixtures.log || { echo 'NOT READY'; tail -5 $L/fixtures.log; })"
if [ "$CONTROLLERS" = bumble ]; then   # the pairing peers (guest/bumble_peers.py) start 20 s after the controllers
  n=0; while [ $n -lt 120 ]; do grep -q '^peers ready\|^peers: ' $L/bumble.log && break; sleep 0.5; n=$((n+1)); done
  t "peers: $(grep -h '^peer .* advertising\|^peers' $L/bumble.log | tr '\n' ' ')"
fi
free -m > $S/state/free.txt
echo "$(cut -d' ' -f1 /proc/uptime)" > $S/state/ready
t "ready"
# --- command agent (python: no fork per poll, which is slow under TCG)
exec python3 -u $S/guest/agent.py >> $L/agent.log 2>&1
EOF
  chmod 755 "$XFER/guest/stage2.sh"
  cp "$LAB_DIR"/guest/*.py "$XFER/guest/"

  cat > "$XFER/guest/agent.py" <<'EOF'
# Command agent: host drops cmd/<id>.sh (atomically renamed), we write out/<id>.out then out/<id>.rc.
import os, subprocess, threading, time
S = '/xfer'
def run(i):
    job = '%s/cmd/%s.run' % (S, i)
    with open('%s/out/%s.out' % (S, i), 'wb') as out:
        rc = subprocess.call(['timeout', '600', 'bash', job], stdout=out, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, cwd='/root')
    with open('%s/out/%s.rc.tmp' % (S, i), 'w') as f: f.write('%d\n' % rc)
    os.rename('%s/out/%s.rc.tmp' % (S, i), '%s/out/%s.rc' % (S, i))
    os.unlink(job)
while True:
    for f in os.listdir(S + '/cmd'):
        if f.endswith('.sh') and not f.startswith('.'):
            i = f[:-3]
            try: os.rename('%s/cmd/%s' % (S, f), '%s/cmd/%s.run' % (S, i))
            except OSError: continue
            threading.Thread(target=run, args=(i,), daemon=True).start()
    time.sleep(0.1)
EOF

  cat > "$XFER/guest/bumble_ctrl.py" <<'EOF'
# N Bumble LE controllers, each behind its own /dev/vhci (-> hci0..hciN-1), all on one in-process LocalLink.
# Like `python -m bumble.apps.controllers vhci vhci`, plus stable public addresses, ordered index creation and
# three fixes to Bumble 0.0.236 (monkeypatched below):
#  1. LocalLink.send_acl_data sends LE ACL data with the sender's *random* address as source, but connections
#     made with a public address are keyed by the public one: the peer drops all ACL data ("!!! no connection
#     for 00:00:00:00:00:00"), so ATT/GATT never works. Use the connection's own address instead.
#  2. Extended advertising reports always say "connectable" and repeat the ADV data as scan response; report
#     the advertising set's real properties (connectable / scannable / legacy) and its scan response data
#     (BlueZ puts the LocalName there).
#  3. It always sends LE Connection Complete (0x01). A host that enabled LE Enhanced Connection Complete in the
#     LE event mask (Linux does when the controller has extended advertising) waits for 0x0A after LE Create
#     Connection: Linux 6.1 then times out, sends LE Create Connection Cancel on a live link, and the connection
#     is left half-dead (mgmt Disconnect sends no HCI Disconnect; the next connect fails with EBUSY).
#     Send the enhanced event when it is enabled.
#  4. RSSI is fixed at -50; BUMBLE_RSSI="-50" (fixed) or "-70:-40" (uniform random per report) sets it.
#  5. A host's own HCI Disconnect comes back to it in Disconnection Complete with the reason it sent (0x13, "remote
#     user terminated") instead of 0x16 ("terminated by local host", what controllers report): BlueZ >= 5.83 then
#     tells the program that asked for the disconnect Device1.Disconnected(org.bluez.Reason.Remote). Report 0x16.
# Link loss on demand (`lab.sh linkloss hciN`): SIGUSR1 makes it read /xfer/state/bumble-cmd ("linkloss N") and end
# every LE link of controller N on both sides with HCI reason 0x08 (Connection Timeout), as a supervision
# timeout would: no LL_TERMINATE_IND is exchanged, each host just hears Disconnection Complete.
import asyncio, logging, os, random, signal, sys
from bumble import core, hci, ll
from bumble.controller import Controller, AdvertisingSet
from bumble.link import LocalLink
from bumble.transport import open_transport
try:   # imported now, while nothing waits for this loop (a module import blocks it for seconds under TCG)
    sys.path.insert(0, '/xfer/guest'); import bumble_peers
except Exception as e:
    bumble_peers = None; print('peers: cannot import guest/bumble_peers.py: %r' % e, flush=True)
logging.basicConfig(level=os.environ.get('BUMBLE_LOG', 'WARNING'), format='%(asctime)s %(levelname)s %(name)s: %(message)s')
_r = [int(x) for x in os.environ.get('BUMBLE_RSSI', '-50').split(':')]
rssi = (lambda: _r[0]) if len(_r) == 1 else (lambda: random.randint(min(_r), max(_r)))

_orig_send_acl = LocalLink.send_acl_data
def send_acl_data(self, sender_controller, destination_address, transport, data):
    if transport == core.PhysicalTransport.LE:
        conn = sender_controller.le_connections.get(destination_address)
        dest = self.find_le_controller(destination_address)
        if conn is not None and dest is not None:
            src = conn.self_address
            asyncio.get_running_loop().call_soon(lambda: dest.on_link_acl_data(src, transport, data))
            return
    return _orig_send_acl(self, sender_controller, destination_address, transport, data)
LocalLink.send_acl_data = send_acl_data

def send_extended_advertising_data(self):
    if self.controller.link:
        pdu = ll.AdvExtInd(advertiser_address=self.address, data=bytes(self.data),
                           sid=self.parameters.advertising_sid if self.parameters else 0,
                           periodic_advertising_data=bytes(self.periodic_advertising_data) if self.periodic_advertising_data else None)
        pdu.lab_props = int(self.parameters.advertising_event_properties) if self.parameters else 0x13
        pdu.lab_scan_rsp = bytes(self.scan_response_data)
        self.controller.send_advertising_pdu(pdu)
AdvertisingSet.send_extended_advertising_data = send_extended_advertising_data

_orig_on_adv = Controller.on_advertising_pdu
def on_advertising_pdu(self, pdu):
    props = getattr(pdu, 'lab_props', None)
    if props is None or not self.le_scan_enable:
        return _orig_on_adv(self, pdu)
    R = hci.HCI_LE_Extended_Advertising_Report_Event.Report
    etype = (props & 0x07) | (0x10 if props & 0x10 else 0)      # connectable|scannable|directed|legacy
    def report(et, data):
        return R(event_type=et, address_type=pdu.advertiser_address.address_type, address=pdu.advertiser_address,
                 primary_phy=hci.Phy.LE_1M, secondary_phy=hci.Phy.LE_1M,
                 advertising_sid=0xFF if props & 0x10 else pdu.sid, tx_power=0x7F, rssi=rssi(),
                 periodic_advertising_interval=0, direct_address_type=0, direct_address=hci.Address.ANY, data=data)
    self.send_hci_packet(hci.HCI_LE_Extended_Advertising_Report_Event([report(etype, pdu.data)]))
    if props & 0x02 and self.le_scan_type == 1:                  # scannable + active scan: scan response
        self.send_hci_packet(hci.HCI_LE_Extended_Advertising_Report_Event([report(etype | 0x08, pdu.lab_scan_rsp)]))
    self.le_scan_enable = False                                  # periodic sync + pending connection: original code
    try: _orig_on_adv(self, pdu)
    finally: self.le_scan_enable = True
Controller.on_advertising_pdu = on_advertising_pdu

_orig_disc_cmd, _orig_le_disc = Controller.on_hci_disconnect_command, Controller.on_le_disconnected
def on_hci_disconnect_command(self, command):
    self._lab_local_disconnect = True
    try: return _orig_disc_cmd(self, command)
    finally: self._lab_local_disconnect = False
def on_le_disconnected(self, connection, reason):
    if getattr(self, '_lab_local_disconnect', False):
        reason = hci.HCI_ErrorCode.CONNECTION_TERMINATED_BY_LOCAL_HOST_ERROR
    return _orig_le_disc(self, connection, reason)
Controller.on_hci_disconnect_command, Controller.on_le_disconnected = on_hci_disconnect_command, on_le_disconnected

_orig_send_hci = Controller.send_hci_packet
def send_hci_packet(self, packet):
    if isinstance(packet, hci.HCI_LE_Connection_Complete_Event) and self.le_event_mask & (1 << 9):
        packet = hci.HCI_LE_Enhanced_Connection_Complete_Event(
            status=packet.status, connection_handle=packet.connection_handle, role=packet.role,
            peer_address_type=packet.peer_address_type, peer_address=packet.peer_address,
            local_resolvable_private_address=hci.Address.ANY, peer_resolvable_private_address=hci.Address.ANY,
            connection_interval=packet.connection_interval, peripheral_latency=packet.peripheral_latency,
            supervision_timeout=packet.supervision_timeout, central_clock_accuracy=packet.central_clock_accuracy)
    return _orig_send_hci(self, packet)
Controller.send_hci_packet = send_hci_packet

async def main(n):
    for _ in range(1200):                         # started before modprobe hci_vhci: wait for the device node
        if os.path.exists('/dev/vhci'): break
        await asyncio.sleep(0.05)
    link = LocalLink(); keep = []
    for i in range(n):
        before = set(os.listdir('/sys/class/bluetooth')) if os.path.isdir('/sys/class/bluetooth') else set()
        t = await open_transport('vhci')          # writes the vhci create request right after open()
        c = Controller('C%d' % i, host_source=t.source, host_sink=t.sink, link=link,
                       public_address='F0:F1:F2:F3:F4:%02X' % i)
        keep.append((t, c))
        for _ in range(200):                      # wait for the kernel to register this index
            now = set(os.listdir('/sys/class/bluetooth')) if os.path.isdir('/sys/class/bluetooth') else set()
            if now - before: break
            await asyncio.sleep(0.05)
        print('controller C%d %s -> %s' % (i, c.public_address, ' '.join(sorted(now - before))), flush=True)
    def command():
        try:
            with open('/xfer/state/bumble-cmd') as f: words = f.read().split()
            os.unlink('/xfer/state/bumble-cmd')
        except OSError as e:
            print('command: %s' % e, flush=True); return
        if len(words) != 2 or words[0] != 'linkloss' or not words[1].isdigit() or int(words[1]) >= len(keep):
            print('command: unknown %r' % words, flush=True); return
        c = keep[int(words[1])][1]; n = 0
        for conn in list(c.le_connections.values()):
            peer = link.find_le_controller(conn.peer_address)
            c.on_le_disconnected(conn, hci.HCI_ErrorCode.CONNECTION_TIMEOUT_ERROR)
            for pc in list(peer.le_connections.values()) if peer else []:
                if pc.peer_address == conn.self_address:
                    peer.on_le_disconnected(pc, hci.HCI_ErrorCode.CONNECTION_TIMEOUT_ERROR)
            n += 1
        print('linkloss C%s: %d link(s) ended with 0x08 (connection timeout)' % (words[1], n), flush=True)
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, command)
    # Peripherals with their own security manager (guest/bumble_peers.py), for the pairing tests. Later, not
    # now: the kernel is still initialising the controllers, and an HCI command left unanswered for 2 s (the
    # loop busy setting up hosts) makes it drop the index.
    peers = []
    async def start_peers():
        await asyncio.sleep(20)
        try:
            peers.extend(await bumble_peers.start(link))
        except Exception as e:
            print('peers: FAILED to start: %r' % e, flush=True)
    if bumble_peers: keep_peers = asyncio.get_running_loop().create_task(start_peers())
    print('ready', flush=True)
    await asyncio.get_running_loop().create_future()
asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 2))
EOF

  cat > "$XFER/guest/power_on.py" <<'EOF'
# Wait for bluetoothd to export hci0..hci<N-1>, power them on, print "hciN=ADDR".
import sys, time, dbus
bus = dbus.SystemBus(); t0 = time.time(); P = 'org.freedesktop.DBus.Properties'
HCIS = ['hci%d' % i for i in range(int(sys.argv[1]) if len(sys.argv) > 1 else 2)]
while True:
    try:
        objs = dbus.Interface(bus.get_object('org.bluez', '/'), 'org.freedesktop.DBus.ObjectManager').GetManagedObjects()
        if all(('/org/bluez/%s' % h) in objs for h in HCIS): break
    except dbus.DBusException: pass
    if time.time() - t0 > 120: raise SystemExit('adapters did not appear')
    time.sleep(0.3)
for h in HCIS:
    o = bus.get_object('org.bluez', '/org/bluez/' + h)
    t1 = time.time()
    while not o.Get('org.bluez.Adapter1', 'Powered', dbus_interface=P):
        try: o.Set('org.bluez.Adapter1', 'Powered', dbus.Boolean(True), dbus_interface=P)
        except dbus.DBusException as e:   # org.bluez.Error.Busy while bluetoothd's own power-on is under way
            if time.time() - t1 > 30: raise
        time.sleep(0.2)
    print('%s=%s' % (h, o.Get('org.bluez.Adapter1', 'Address', dbus_interface=P)))
EOF

  cat > "$XFER/guest/adv_kick.py" <<'EOF'
# example-advertisement's TestAdvertisement on a pinned adapter, re-registered every KICK seconds.
# Why: btdev (btvirt) sends ONE advertising report per scan-enable (duplicate filtering) and sends it
# before the kernel marks discovery active, so the kernel drops it; a (re-)registration during an
# active scan produces a fresh report. Without this, only the first discovery after boot finds it.
import sys, types, importlib.machinery, dbus, dbus.mainloop.glib
from gi.repository import GLib
adapter, path = sys.argv[1], sys.argv[2]
kick = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
ex = types.ModuleType('example'); ex.__file__ = path
importlib.machinery.SourceFileLoader('example', path).exec_module(ex)
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()
mgr = dbus.Interface(bus.get_object('org.bluez', adapter), 'org.bluez.LEAdvertisingManager1')
ad = ex.TestAdvertisement(bus, 0)
def log(*a): print(*a, flush=True)
def register(first=False):
    mgr.RegisterAdvertisement(ad.get_path(), {},
        reply_handler=lambda: first and log('Advertisement registered on', adapter,
                                            '(re-registered every %ss)' % kick if kick > 0 else '(no re-registration)'),
        error_handler=lambda e: log('register failed:', e))
def rekick():
    mgr.UnregisterAdvertisement(ad.get_path(), reply_handler=register,
                                error_handler=lambda e: (log('unregister failed:', e), register()))
    return True
register(True)
if kick > 0: GLib.timeout_add(int(kick * 1000), rekick)
GLib.MainLoop().run()
EOF

  cat > "$XFER/guest/pin_adapter.py" <<'EOF'
# Run one of BlueZ's example peripherals with find_adapter() pinned to a given adapter path.
import sys, types, importlib.machinery
adapter, path = sys.argv[1], sys.argv[2]
mod = types.ModuleType('example'); mod.__file__ = path
importlib.machinery.SourceFileLoader('example', path).exec_module(mod)
mod.find_adapter = lambda bus: adapter
print('pinned', path, 'to', adapter, flush=True)
mod.main()
EOF

  cat > "$XFER/guest/bctl.py" <<'EOF'
# Drive bluetoothctl through a pty like a person would; print a clean (ANSI-stripped) transcript.
import os, pty, re, select, sys, time
ANSI = re.compile(rb'\x1b\[[0-9;?]*[A-Za-z]|\x01|\x02|\r')
pid, fd = pty.fork()
if pid == 0:
    os.execvp('bluetoothctl', ['bluetoothctl'])
buf = b''
def pump(secs, pat=None, since=0):
    global buf
    end = time.time() + secs
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try: d = os.read(fd, 65536)
            except OSError: return False
            if not d: return False
            buf += d
            sys.stdout.write(ANSI.sub(b'', d).decode('utf-8', 'replace')); sys.stdout.flush()
        if pat and re.search(pat, ANSI.sub(b'', buf[since:])): return True
    return pat is None
def cmd(c, wait=1.0, pat=None):
    mark = len(buf)
    os.write(fd, (c + '\n').encode())
    ok = pump(wait, pat.encode() if pat else None, mark)
    if pat and not ok:
        print('\n!!! timeout waiting for %r after %r' % (pat, c)); sys.stdout.flush()
    return ok
central, periph = sys.argv[1], sys.argv[2]
U = lambda s: '0000%s-0000-1000-8000-00805f9b34fb' % s
pump(1.5)
ok = cmd('select ' + central, 1)
cmd('show', 1)
cmd('menu scan', 0.5); cmd('transport le', 0.5); cmd('back', 0.5)
ok &= cmd('scan on', 15, r'Device %s' % periph)
pump(3)                                   # collect a few RSSI/property updates
cmd('scan off', 1)
cmd('info ' + periph, 1.5)
ok &= cmd('connect ' + periph, 20, r'Connection successful')
ok &= cmd('', 15, r'ServicesResolved: yes') or True
cmd('menu gatt', 0.5)
cmd('list-attributes ' + periph, 2)
ok &= cmd('select-attribute ' + U('2a19'), 1)
ok &= cmd('read', 5, r'Value:|\s[0-9a-f]{2}\s')
cmd('select-attribute ' + U('2a38'), 1); cmd('read', 3)
ok &= cmd('select-attribute ' + U('2a37'), 1)
ok &= cmd('notify on', 5, r'Notify started')
pump(5)
cmd('notify off', 2)
ok &= cmd('select-attribute 12345678-1234-5678-1234-56789abcdef1', 1)
cmd('read', 3)
ok &= cmd('write "0x42 0x43 0x44"', 5, r'Attempting to write')
cmd('read', 3)
cmd('select-attribute ' + U('2a39'), 1); cmd('write 0x01', 3)
cmd('back', 0.5)
cmd('disconnect ' + periph, 5, r'Successful disconnected|Disconnection successful|Connected: no')
cmd('quit', 1)
hr = len(re.findall(rb'2a37[^\n]*\n[^\n]*Value|Value:', ANSI.sub(b'', buf)))
print('\n=== bctl summary: ok=%s' % bool(ok))
sys.exit(0 if ok else 1)
EOF

  cat > "$XFER/guest/scan_check.py" <<'EOF'
# Central on hci0: discover until a device advertising 180d shows up; print timing and what we saw.
import sys, time, dbus, dbus.mainloop.glib
from gi.repository import GLib
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus(); t0 = time.time()
ad = dbus.Interface(bus.get_object('org.bluez', '/org/bluez/hci0'), 'org.bluez.Adapter1')
# DuplicateData makes it a filtered discovery: since BlueZ 5.67 a Transport-only filter is regular discovery,
# which drops hci1's advert (example-advertisement sets no discoverable flag).
ad.SetDiscoveryFilter(dbus.Dictionary({'Transport': 'le', 'DuplicateData': dbus.Boolean(True)}, signature='sv'))
loop = GLib.MainLoop(); found = {}; known = {}
def check(path, props):
    known.setdefault(str(path), {}).update(props); props = known[str(path)]
    if not found and '0000180d-0000-1000-8000-00805f9b34fb' in [str(u) for u in props.get('UUIDs', [])] and 'RSSI' in props:
        found.update(path=str(path), addr=str(props.get('Address')), rssi=int(props['RSSI']), t=round(time.time() - t0, 2))
        loop.quit()
def added(path, ifaces):
    if 'org.bluez.Device1' in ifaces: check(path, ifaces['org.bluez.Device1'])
def changed(iface, ch, inv, path=None):
    if iface == 'org.bluez.Device1' and str(path).startswith('/org/bluez/hci0/'): check(path, ch)
bus.add_signal_receiver(added, 'InterfacesAdded', 'org.freedesktop.DBus.ObjectManager')
bus.add_signal_receiver(changed, 'PropertiesChanged', 'org.freedesktop.DBus.Properties', path_keyword='path')
om = dbus.Interface(bus.get_object('org.bluez', '/'), 'org.freedesktop.DBus.ObjectManager')
for p, i in om.GetManagedObjects().items():
    if str(p).startswith('/org/bluez/hci0/') and 'org.bluez.Device1' in i:
        known[str(p)] = dict(i['org.bluez.Device1']); known[str(p)].pop('RSSI', None)   # want a fresh RSSI
if not found:
    ad.StartDiscovery(); GLib.timeout_add_seconds(int(sys.argv[1]) if len(sys.argv) > 1 else 20, loop.quit); loop.run()
    try: ad.StopDiscovery()
    except dbus.DBusException: pass
print(found if found else 'NOT FOUND'); sys.exit(0 if found else 1)
EOF
}

# ---------------------------------------------------------------- host side
qemu_pid() { local p; p=$(cat "$RUN/qemu.pid" 2>/dev/null) && [ -n "$p" ] && kill -0 "$p" 2>/dev/null && echo "$p"; }

vm_exec() {   # vm_exec TIMEOUT CMD  -> streams output, returns rc
  local to=$1; shift
  [ -n "$(qemu_pid)" ] || die "VM is not up (run: $0 up)"
  [ -f "$XFER/state/ready" ] || die "VM not ready yet"
  local id; id="$(date +%s%N)-$$"
  printf '%s\n' "$*" > "$XFER/cmd/.$id.tmp"; mv "$XFER/cmd/.$id.tmp" "$XFER/cmd/$id.sh"
  local off=0 size end=$((SECONDS + to))
  while :; do
    if [ -f "$XFER/out/$id.out" ]; then
      size=$(stat -c %s "$XFER/out/$id.out")
      if [ "$size" -gt "$off" ]; then tail -c +$((off + 1)) "$XFER/out/$id.out" | head -c $((size - off)) || true; off=$size; fi
    fi
    if [ -f "$XFER/out/$id.rc" ]; then
      size=$(stat -c %s "$XFER/out/$id.out"); [ "$size" -gt "$off" ] && tail -c +$((off + 1)) "$XFER/out/$id.out"
      local rc; rc=$(cat "$XFER/out/$id.rc"); rm -f "$XFER/out/$id".{out,rc}; return "$rc"
    fi
    [ $SECONDS -lt $end ] || { log "timeout waiting for guest command"; return 124; }
    sleep 0.1
  done
}

accel_args() {
  local want="${LAB_ACCEL:-auto}"
  # /dev/kvm backed by kvm_pvm (PVM, no kvm_intel/kvm_amd) only runs PVM-aware guest kernels: a stock
  # Debian kernel hangs right after "Probing EDD" there, so treat it as "no KVM" unless LAB_ACCEL=kvm.
  if [ "$want" = auto ] && [ -d /sys/module/kvm_pvm ] && [ ! -d /sys/module/kvm_intel ] && [ ! -d /sys/module/kvm_amd ]; then
    log "/dev/kvm is kvm_pvm (PVM): stock guest kernels cannot boot on it; using TCG"
    echo "-accel tcg,thread=multi,tb-size=${LAB_TB_MB:-128} -cpu max"; return 0
  fi
  if [ "$want" != tcg ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] && \
     qemu-system-x86_64 -accel kvm -M none -display none -nodefaults -S -daemonize -pidfile "$RUN/probe.pid" 2>/dev/null; then
    kill "$(cat "$RUN/probe.pid")" 2>/dev/null; rm -f "$RUN/probe.pid"
    # -arch-capabilities: nested KVM here rejects MSR 0x10a (IA32_ARCH_CAPABILITIES) with -cpu host/max
    echo "-accel kvm -cpu host,-arch-capabilities"
  else
    [ "$want" = kvm ] && die "KVM requested but unusable"
    echo "-accel tcg,thread=multi,tb-size=${LAB_TB_MB:-128} -cpu max"
  fi
}

cmd_up() {
  local t0; t0=$(date +%s.%N)
  if [ -n "$(qemu_pid)" ]; then
    [ "$(cat "$RUN/suite" 2>/dev/null || echo bookworm)" = "$SUITE" ] \
      || die "the running lab is $(cat "$RUN/suite" 2>/dev/null || echo bookworm), not $SUITE: $0 down first"
    log "already up (qemu pid $(qemu_pid)); not starting a second VM"
    [ -f "$XFER/state/ready" ] && { log "VM reports ready"; return 0; }
    die "VM is up but not ready; try: $0 down && $0 up"
  fi
  if [ ! -f "$INITRD" ] || [ ! -f "$KERNEL" ] || { [ "$CONTROLLERS" = bumble ] && [ ! -f "$ROOTFS/opt/bumble/.ok" ]; }; then cmd_build; fi
  rm -rf "$RUN"; mkdir -p "$RUN"
  write_guest
  local accel; accel=$(accel_args)
  log "booting VM ($SUITE, $accel, ${MEM}M, controllers: $CONTROLLERS, D-Bus TCP on 127.0.0.1:$PORT)"
  echo "$accel" > "$RUN/accel"
  echo "$CONTROLLERS" > "$RUN/controllers"
  echo "$SUITE" > "$RUN/suite"
  start_qemu() (
  # The daemonized VM keeps no descriptor of whoever started the lab: a lock held around
  # `lab.sh up` (flock LOCK run-tests.sh) would otherwise stay held for as long as the VM runs.
  for fd in /proc/self/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-" 2>/dev/null; done
  exec qemu-system-x86_64 -name bleexplr-lab $1 -M q35 -smp 2 -m "$MEM" \
    -nodefaults -no-user-config -display none -no-reboot \
    -kernel "$KERNEL" -initrd "$INITRD" \
    -append "console=ttyS0 ${LAB_KCMD:-quiet loglevel=3} panic=-1 rdinit=/init" \
    -serial "file:$RUN/console.log" \
    -monitor "unix:$RUN/monitor.sock,server=on,wait=off" \
    -fsdev "local,id=xfer,path=$XFER,security_model=none" -device virtio-9p-pci,fsdev=xfer,mount_tag=xfer \
    -netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$PORT-:$PORT" -device virtio-net-pci,netdev=n0 \
    -pidfile "$RUN/qemu.pid" -daemonize
  )
  if ! start_qemu "$accel" 2> "$RUN/qemu.err"; then
    cat "$RUN/qemu.err" >&2
    [ "${LAB_ACCEL:-auto}" = kvm ] && die "qemu failed with KVM"
    accel="-accel tcg -cpu max"; echo "$accel" > "$RUN/accel"
    log "qemu failed with KVM; retrying with TCG"
    start_qemu "$accel" || die "qemu failed"
  fi
  local i
  for i in $(seq 1 ${LAB_BOOT_TIMEOUT:-300}0); do
    [ -f "$XFER/state/ready" ] && break
    [ -n "$(qemu_pid)" ] || { cat "$RUN/console.log"
      die "qemu exited: $(grep -m1 -o 'Initramfs unpacking failed.*\|Kernel panic.*' "$RUN/console.log" || echo 'see console above')$(
          grep -q 'Initramfs unpacking failed' "$RUN/console.log" && echo " (the initramfs does not fit: raise LAB_MEM, now ${MEM} MiB)")"; }
    sleep 0.1
  done
  [ -f "$XFER/state/ready" ] || { tail -30 "$XFER/log/stage2.log" "$RUN/console.log" 2>&1; die "guest did not become ready"; }
  grep -q 'fixtures ready' "$XFER/log/fixtures.log" 2>/dev/null \
    || { tail -20 "$XFER/log/fixtures.log" >&2; die "fixture peripherals did not start (log above: $XFER/log/fixtures.log)"; }
  local t1; t1=$(date +%s.%N)
  log "guest ready (guest uptime $(cat "$XFER/state/ready")s); checking that the central on hci0 sees the peripheral"
  vm_exec 60 "python3 -u /xfer/guest/scan_check.py 20" || die "central did not see the peripheral"
  local t2; t2=$(date +%s.%N)
  echo "LAB RUNS: suite=$SUITE $(cat "$XFER/state/versions" 2>/dev/null || echo 'versions unknown')" | tee "$RUN/versions.txt"
  printf 'up (%s): boot->peripheral ready %.1fs, ->central saw it %.1fs; accel: %s; qemu RSS %s MiB\n' "$CONTROLLERS" \
    "$(awk "BEGIN{print $t1 - $t0}")" "$(awk "BEGIN{print $t2 - $t0}")" "$accel" \
    "$(( $(ps -o rss= -p "$(qemu_pid)") / 1024 ))" | tee "$RUN/up-timing.txt"
  echo "host: DBUS_SYSTEM_BUS_ADDRESS=tcp:host=127.0.0.1,port=$PORT"
}

cmd_down() {
  local p; p=$(qemu_pid || true)
  if [ -n "$p" ]; then
    log "stopping qemu pid $p"
    if [ -S "$RUN/monitor.sock" ]; then
      $HOST_PY -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"quit\n"); s.recv(4096)' "$RUN/monitor.sock" 2>/dev/null || true
    fi
    local i; for i in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$p" 2>/dev/null && { kill "$p"; sleep 0.5; }
    kill -0 "$p" 2>/dev/null && kill -9 "$p"
  fi
  rm -rf "$RUN"
  log "down"
}

cmd_status() {
  local p; p=$(qemu_pid || true)
  if [ -n "$p" ]; then
    echo "up: qemu pid $p, $(cat "$RUN/suite" 2>/dev/null) ($(cat "$XFER/state/versions" 2>/dev/null)), $(cat "$RUN/accel"), ready=$([ -f "$XFER/state/ready" ] && echo yes || echo no), D-Bus tcp:host=127.0.0.1,port=$PORT"
  else echo "down"; fi
}

adapter_addr() {  # adapter_addr hciN (inside VM)
  vm_exec 10 "dbus-send --system --print-reply=literal --dest=org.bluez /org/bluez/$1 org.freedesktop.DBus.Properties.Get string:org.bluez.Adapter1 string:Address | awk '{print \$NF}'"
}

cmd_central_demo() {
  local c p
  c=$(adapter_addr hci0); p=$(adapter_addr hci1)
  log "central hci0=$c  peripheral hci1=$p"
  vm_exec 180 "python3 -u /xfer/guest/bctl.py $c $p"
}

cmd_fixture() {   # fixture press | beacon [ibeacon|eddystone] on|off | adv NAME on|off | stream [FILE] | drop | dfu on|off | reset | state
  local a=("$@")
  if [ "${1:-}" = stream ] && [ -n "${2:-}" ]; then   # hand the payload file to the guest through the 9p share
    [ -f "$2" ] || die "no such file: $2"
    local f="state/payload-$$"; cp "$2" "$XFER/$f"; a=(stream "/xfer/$f")
  fi
  vm_exec 60 "python3 /xfer/guest/fixtures.py ctl ${a[*]}"
}

cmd_bluetoothd() {   # bluetoothd kill [SIG] | start | restart: the guest's bluetoothd, as stage2 starts it
  local live='pgrep -r RSD -x bluetoothd'   # a live one (a zombie is state Z)
  case "${1:-}" in
    kill) local sig="${2:-TERM}"
      vm_exec 40 "pkill -$sig -x bluetoothd; for i in \$(seq 300); do $live >/dev/null || break; sleep 0.1; done
        if $live >/dev/null; then echo 'bluetoothd still running'; exit 1; fi; echo 'bluetoothd stopped (SIG$sig)'" ;;
    start)
      vm_exec 40 "if $live >/dev/null; then echo 'bluetoothd already running'; exit 1; fi
        echo \"==== bluetoothd started again \$(cut -d' ' -f1 /proc/uptime)s\" >> /xfer/log/bluetoothd.log
        setsid \$(cat /xfer/state/bluetoothd.cmd) >> /xfer/log/bluetoothd.log 2>&1 < /dev/null &
        sleep 0.2; $live >/dev/null && echo \"bluetoothd started: \$(cat /xfer/state/bluetoothd.cmd)\"" ;;
    restart) cmd_bluetoothd kill "${2:-TERM}" && cmd_bluetoothd start ;;
    *) die "usage: $0 bluetoothd kill [SIG] | start | restart [SIG]" ;;
  esac
}

GUEST_BX=/tmp/bleexplr   # in the guest (tmpfs): bleexplr and its Swift runtime, copied from $XFER/bleexplr

guest_bx_install() {   # $BLEEXPLR_BIN + the non-system libraries it links into the share, when the build changed
  local bin="${BLEEXPLR_BIN:-$LAB_DIR/../../.build/debug/bleexplr}" d="$XFER/bleexplr" want lib
  [ -x "$bin" ] || die "no bleexplr binary at $bin (swift build first, or set BLEEXPLR_BIN)"
  want="$(readlink -f "$bin") $(stat -L -c '%s %Y' "$bin")"
  [ "$(cat "$d/stamp" 2>/dev/null)" = "$want" ] && return 0
  ! ldd "$bin" | grep 'not found' >&2 || die "$bin: libraries not found on the host (above)"
  rm -rf "$d"; mkdir -p "$d/lib" "$d/run"
  cp -L "$bin" "$d/bleexplr"
  # the host's glibc, libdbus, ncurses... are Debian's, as the guest's (bookworm or newer): only the toolchain's
  for lib in $(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'); do
    case "$lib" in /lib/*|/lib64/*|/usr/lib/*|/usr/lib64/*) ;; *) cp -L "$lib" "$d/lib/" ;; esac
  done
  echo "$want" > "$d/stamp"
}

cmd_guest_bleexplr() {   # guest-bleexplr [VAR=value...] ARGS...
  guest_bx_install
  local to="${LAB_GUEST_TIMEOUT:-120}" envs="" id rc=0
  while [ $# -gt 0 ] && [[ "$1" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do envs+="$(printf '%q ' "$1")"; shift; done
  [ $# -gt 0 ] || die "usage: $0 guest-bleexplr [VAR=value...] ARGS..."
  id="$(date +%s%N)-$$"
  # (the copy into tmpfs: executing a 12 MB debug binary and 15 MB of runtime straight off 9p is slow under TCG)
  local g="if ! cmp -s /xfer/bleexplr/stamp $GUEST_BX/stamp 2>/dev/null; then
      rm -rf $GUEST_BX && mkdir -p $GUEST_BX && cp -r /xfer/bleexplr/bleexplr /xfer/bleexplr/lib $GUEST_BX/ || exit 127
      miss=\$(LD_LIBRARY_PATH=$GUEST_BX/lib ldd $GUEST_BX/bleexplr | grep 'not found')
      if [ -n \"\$miss\" ]; then echo \"the guest ($(cat "$RUN/suite" 2>/dev/null)) lacks libraries bleexplr needs (add their packages to PKGS in lab.sh):\" \$miss >&2; rm -rf $GUEST_BX; exit 127; fi
      cp /xfer/bleexplr/stamp $GUEST_BX/stamp
    fi
    cd /tmp || exit 127
    env -u DBUS_SYSTEM_BUS_ADDRESS LD_LIBRARY_PATH=$GUEST_BX/lib $envs\
      timeout -k 10 $to $GUEST_BX/bleexplr $(printf '%q ' "$@")"
  # LAB_GUEST_PIDFILE=NAME: in the background, its pid (timeout's: it passes a SIGTERM on) in /xfer/bleexplr/run/NAME.pid
  [ -n "${LAB_GUEST_PIDFILE:-}" ] && g+=" & echo \$! > /xfer/bleexplr/run/${LAB_GUEST_PIDFILE//[^A-Za-z0-9_.-]/_}.pid; wait \$!"
  # LAB_GUEST_TIMES=1: its CPU time too (bash's `times`, not in a subshell: this shell's children, timeout and bleexplr)
  [ "${LAB_GUEST_TIMES:-}" = 1 ] && g+="; rc=\$?; times > /tmp/.bx-times.\$\$; set -- \$(tail -1 /tmp/.bx-times.\$\$); rm -f /tmp/.bx-times.\$\$
    echo \"lab-guest-times: user \$1 sys \$2\" >&2; exit \$rc"
  vm_exec $((to + 60)) "{ $g ; } 2> /xfer/bleexplr/run/$id.err" || rc=$?
  cat "$XFER/bleexplr/run/$id.err" >&2 2>/dev/null; rm -f "$XFER/bleexplr/run/$id.err"
  return $rc
}

cmd_logs() {   # logs [NAME...]: guest logs (default bluetoothd fixtures stage2); btmon decoded if LAB_BTMON=1
  local n names=("$@"); [ ${#names[@]} -gt 0 ] || names=(stage2 bluetoothd fixtures)
  for n in "${names[@]}"; do
    if [ "$n" = btmon ]; then
      [ -f "$XFER/log/btmon.snoop" ] || { echo "(no btmon capture: start the lab with LAB_BTMON=1)"; continue; }
      echo "===== btmon (decoded, last ${LAB_LOG_LINES:-300} lines)"
      vm_exec 60 "btmon -r /xfer/log/btmon.snoop 2>/dev/null | tail -n ${LAB_LOG_LINES:-300}"
    else
      echo "===== $n.log"; tail -n "${LAB_LOG_LINES:-300}" "$XFER/log/$n.log" 2>/dev/null || echo "(none)"
    fi
  done
}

case "${1:-}" in
  build) cmd_build ;;
  build-stage) [ -n "${LAB_STAGE_DIR:-}" ] || die "build-stage is internal (sid's staged build)"
    CACHE="$LAB_STAGE_DIR"; set_paths; build_image ;;
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  exec) shift; [ $# -gt 0 ] || die "usage: $0 exec CMD..."; vm_exec "${LAB_EXEC_TIMEOUT:-600}" "$*" ;;
  central-demo) cmd_central_demo ;;
  host-demo) shift
    # btvirt reports RSSI 127, which any RSSI discovery filter drops: no filter there unless asked for.
    if [ -z "${LAB_RSSI_FILTER+x}" ] && [ "$(cat "$RUN/controllers" 2>/dev/null || echo btvirt)" = btvirt ]; then
      export LAB_RSSI_FILTER=''
    fi
    DBUS_SYSTEM_BUS_ADDRESS="tcp:host=127.0.0.1,port=$PORT" exec $HOST_PY -u "$LAB_DIR/host_central.py" "$@" ;;
  env|host-env) echo "export DBUS_SYSTEM_BUS_ADDRESS=tcp:host=127.0.0.1,port=$PORT"
           echo "export BLEEXPLR_LAB_BUS=tcp:host=127.0.0.1,port=$PORT" ;;
  fixture) shift; cmd_fixture "$@" ;;
  bluetoothd) shift; cmd_bluetoothd "$@" ;;
  linkloss) shift   # linkloss hciN: controller N loses every LE link (supervision timeout, both sides)
    case "${1:-}" in hci[0-9]*) ;; *) die "usage: $0 linkloss hciN" ;; esac
    [ "$(cat "$RUN/controllers" 2>/dev/null)" = bumble ] || die "linkloss needs LAB_CONTROLLERS=bumble"
    vm_exec 20 "echo linkloss ${1#hci} > /xfer/state/bumble-cmd && kill -USR1 \$(cat /run/bumble.pid) && sleep 0.5 && tail -1 /xfer/log/bumble.log" ;;
  cache-dir) echo "$CACHE_TOP" ;;
  versions) cmd_versions ;;
  logs) shift; cmd_logs "$@" ;;
  guest-bleexplr) shift; cmd_guest_bleexplr "$@" ;;
  console) cat "$RUN/console.log"; cat "$XFER/log/stage2.log" 2>/dev/null ;;

  *) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 2 ;;
esac
