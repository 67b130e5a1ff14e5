# enbeacon's U-Boot script: chooses root slot A or B by RAUC's U-Boot bootchooser protocol and boots the
# kernel and initrd of that slot. Compiled to boot.scr by Tools/build-image (mkimage -T script).
#
# The state lives in U-Boot's environment (uboot.env on the FAT, which RAUC changes with fw_setenv):
#   BOOT_ORDER   the slots to try, first preferred ("A B" or "B A")
#   BOOT_A_LEFT  tries slot A has left before it is given up; likewise BOOT_B_LEFT
# Each boot takes one try from the slot it starts, and saves that before the kernel runs: a slot that
# never comes up far enough for `rauc status mark-good` (which gives its tries back) runs out of them, and
# the next slot in BOOT_ORDER boots. A power cut at any point leaves either the old or the new count.

# A card as written has no uboot.env (U-Boot starts from its built-in environment, which a uboot.env would
# replace whole, bootcmd included): slot A first, and slot B, still empty, without tries until an update
# writes it (RAUC gives it its tries then). The first saveenv below writes uboot.env.
test -n "${BOOT_ORDER}" || setenv BOOT_ORDER "A B"
test -n "${BOOT_A_LEFT}" || setenv BOOT_A_LEFT 3
test -n "${BOOT_B_LEFT}" || setenv BOOT_B_LEFT 0

setenv enbeacon_slot
setenv enbeacon_preferred
for slot in ${BOOT_ORDER}; do
  test -n "${enbeacon_preferred}" || setenv enbeacon_preferred ${slot}
  if test -z "${enbeacon_slot}"; then
    if test "${slot}" = "A" && test ${BOOT_A_LEFT} -gt 0; then
      setexpr BOOT_A_LEFT ${BOOT_A_LEFT} - 1
      setenv enbeacon_slot A
      setenv enbeacon_part 2
    elif test "${slot}" = "B" && test ${BOOT_B_LEFT} -gt 0; then
      setexpr BOOT_B_LEFT ${BOOT_B_LEFT} - 1
      setenv enbeacon_slot B
      setenv enbeacon_part 3
    fi
  fi
done

if test -z "${enbeacon_slot}"; then
  # Every slot used its tries up: rather than a badge that never boots again, both get their tries back
  # and the preferred one is tried first. Its health service decides again.
  echo "enbeacon: no slot has tries left; giving both slots 3 tries again"
  setenv BOOT_A_LEFT 3
  setenv BOOT_B_LEFT 3
  saveenv
  reset
fi

# The slot booted is not the first of BOOT_ORDER: the preferred slot has used its tries up (an update that
# did not prove itself). The kernel command line tells the system, which records it for `status`.
setenv enbeacon_rollback
test "${enbeacon_slot}" = "${enbeacon_preferred}" || setenv enbeacon_rollback " enbeacon.rollback=${enbeacon_preferred}"

echo "enbeacon: slot ${enbeacon_slot} (order ${BOOT_ORDER}, tries left A ${BOOT_A_LEFT} B ${BOOT_B_LEFT})"
saveenv

# distro_bootcmd found this script on ${devtype} ${devnum}: the slots are partitions of the same card.
test -n "${devtype}" || setenv devtype mmc
test -n "${devnum}" || setenv devnum 0

# Addresses in the Pi's first 1 GB, clear of U-Boot's defaults (this script runs from scriptaddr, low in
# RAM, and must not be overwritten while it runs): the kernel (Debian's arm64 vmlinuz is an uncompressed
# Image, 33 MB) at 128 MiB, where booti runs it in place; the initrd at 256 MiB; the device tree the firmware
# (or QEMU's -dtb) handed over, with the firmware's changes (memory, MAC address), first moved to 240 MiB,
# out of the kernel's way.
setenv enbeacon_kernel 0x08000000
setenv enbeacon_fdt 0x0f000000
setenv enbeacon_initrd 0x10000000
test -n "${fdt_addr}" || setenv fdt_addr ${fdtcontroladdr}
# `fdt move` works only on a tree `fdt addr` has selected. Under QEMU the tree sits at 0x08000000, where the
# kernel goes: it is moved before anything is loaded.
fdt addr ${fdt_addr}
fdt move ${fdt_addr} ${enbeacon_fdt} 0x40000

setenv bootargs "root=PARTUUID=@DISKID@-0${enbeacon_part} ro rootwait rootfstype=ext4 console=ttyS1,115200 quiet loglevel=3 rauc.slot=${enbeacon_slot}${enbeacon_rollback}"
load ${devtype} ${devnum}:${enbeacon_part} ${enbeacon_kernel} /boot/vmlinuz
load ${devtype} ${devnum}:${enbeacon_part} ${enbeacon_initrd} /boot/initrd.img
# The Pi's U-Boot starts USB before this script (preboot: usb start). Linux's dwc2 driver is handed the
# controller stopped: left running, it enumerated nothing on the emulated Pi 3 ("dwc2: Not connected" at every
# try), and on a Pi 3 the Ethernet chip hangs off that port.
usb stop
booti ${enbeacon_kernel} ${enbeacon_initrd}:${filesize} ${enbeacon_fdt}
echo "enbeacon: slot ${enbeacon_slot} did not boot; resetting to try again"
reset
