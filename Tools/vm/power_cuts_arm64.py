"""The arm64 machine of Tools/vm/power-cuts --arch aarch64: the board build's aarch64 agent under
`qemu-system-aarch64 -M virt` (software emulation) on Debian 12's arm64 kernel, the one Tools/vm/run-tests
--arch aarch64 pins (Tools/vm/arm64_vm.py).

The amd64 guest reaches the host's root over 9p and runs the guest side (power_cuts_guest.py) with the host's
Python. An arm64 guest cannot run the host's programs, so it gets a root of its own, made here from Debian's
arm64 packages (apt-get download, dpkg-deb -x, cached in .build/vm/debs) and shared over 9p the same way:
python3.11 with its standard library, e2fsck, static busybox for the shell, mount, date and sync, and the
agent's loader and libraries, libcurl's too (the cross glibc and the board build's arm64 sysroot). The
guest side then runs unchanged: the same checks, the same actions, the same `@@` lines. Running the checks on
the host through a shell in the guest instead (as arm64_vm does for its cases) would have meant a second
implementation of every check and action, and the two drifting apart.
"""

import gzip
import os
import shutil

import arm64_vm

# The guest side's programs: the interpreter and the standard library (json, random, subprocess, argparse),
# e2fsck and the libraries it links, and what the interpreter links besides glibc.
PACKAGES = ["python3.11-minimal", "libpython3.11-minimal", "libpython3.11-stdlib", "e2fsprogs", "libext2fs2",
            "libcom-err2", "libblkid1", "libuuid1", "libexpat1", "zlib1g"]
PYTHON = "/usr/bin/python3.11"
# Loaded by the initramfs, dependencies first: the 9p root and work folder, the data disk and its filesystem.
MODULES = ["virtio_pci", "9pnet_virtio", "9p", "virtio_blk", "crc32c_generic", "ext4"]
# What the plan and power_cuts_guest.py call by name, from busybox (e2fsck is e2fsprogs').
APPLETS = ["sh", "mount", "umount", "date", "sync", "mkdir", "cat", "ls", "poweroff", "chroot", "sleep"]


class Machine:
    """What power-cuts needs to boot the arm64 guest: kernel, initramfs, the guest's Python, QEMU's command."""

    def __init__(self, kernel: str, initrd: str, root: str, pinned: str) -> None:
        self.kernel = kernel
        self.initrd = initrd
        self.root = root
        self.pinned = pinned
        self.python = PYTHON

    def qemu(self, work: str) -> list[str]:
        """The command up to the data disk: -smp 2 is multi-threaded TCG (one host thread per CPU)."""
        return ["qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a72", "-accel", "tcg", "-smp", "2",
                "-m", "768M", "-nographic", "-no-reboot", "-nic", "none", "-monitor", "none",
                "-kernel", self.kernel, "-initrd", self.initrd,
                "-append", "console=ttyAMA0 panic=-1 loglevel=3",
                "-virtfs", f"local,path={self.root},mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
                "-virtfs", f"local,path={work},mount_tag=work,security_model=none"]


def prepare(runner, enbeacon: str, work: str) -> Machine:
    """Fetches the kernel and packages (once), builds the guest's root under work/arm64-root and its initramfs.
    Raises runner.Skip when something cannot be had."""
    for tool, package in [("qemu-system-aarch64", "qemu-system-arm"), ("readelf", "binutils"),
                          ("depmod", "kmod"), ("dpkg-deb", "dpkg")]:
        if shutil.which(tool) is None:
            raise runner.Skip(f"missing {tool} ({package})")
    if not os.path.exists("/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1"):
        raise runner.Skip("no arm64 glibc in /usr/aarch64-linux-gnu (libc6-arm64-cross)")
    kernel_root = arm64_vm.unpacked(runner, arm64_vm.fetch_arm64(runner, arm64_vm.KERNEL_PACKAGE,
                                                                 arm64_vm.KERNEL_VERSION),
                                    f"{arm64_vm.KERNEL_PACKAGE}_{arm64_vm.KERNEL_VERSION}")
    busybox = arm64_vm.unpacked(runner, arm64_vm.fetch_arm64(runner, arm64_vm.BUSYBOX_PACKAGE, None),
                                "busybox-static-arm64")
    release = os.listdir(os.path.join(kernel_root, "lib", "modules"))[0]
    root = os.path.join(work, "arm64-root")
    build_root(runner, root, enbeacon, work, [arm64_vm.fetch_arm64(runner, package, None) for package in PACKAGES],
               os.path.join(busybox, "bin", "busybox"))
    initrd = os.path.join(work, "initrd.gz")
    build_initramfs(runner, initrd, kernel_root, release, os.path.join(busybox, "bin", "busybox"), work)
    return Machine(os.path.join(kernel_root, "boot", f"vmlinuz-{release}"), initrd, root,
                   f"{arm64_vm.KERNEL_PACKAGE}={arm64_vm.KERNEL_VERSION}")


def build_root(runner, root: str, enbeacon: str, work: str, debs: list[str], busybox: str) -> None:
    """The guest's / : the packages unpacked, busybox and its applets, the agent's libraries, and the mount
    points the initramfs uses (the tree is read-only to the guest)."""
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    for deb in debs:
        if runner.run(["dpkg-deb", "-x", deb, root]).returncode != 0:
            raise runner.Skip(f"dpkg-deb -x {deb} failed")
    for directory in ["bin", "lib", "proc", "sys", "dev", "tmp", "run", "root", work.lstrip("/")]:
        os.makedirs(os.path.join(root, directory), exist_ok=True)
    shutil.copy(busybox, os.path.join(root, "bin", "busybox"))
    for applet in APPLETS:
        link = os.path.join(root, "bin", applet)
        if not os.path.lexists(link):
            os.symlink("busybox", link)
    # glibc, the agent's loader and libraries, and libcurl with its own: the agent loads libcurl only when a key
    # sync starts (dlopen), so its NEEDED does not name it, and without it every sync fails before the cursor.
    try:
        libraries = arm64_vm.libraries(enbeacon, also=("libcurl.so.4", "libm.so.6"))
    except arm64_vm.guest_cases.CaseSkip as skip:
        raise runner.Skip(str(skip))
    for guest_path, source in libraries.items():
        shutil.copy(source, os.path.join(root, guest_path.lstrip("/")))
    for program in [os.path.join(root, PYTHON.lstrip("/")), os.path.join(root, "sbin", "e2fsck")]:
        if not os.path.exists(program):
            raise runner.Skip(f"the arm64 root has no {os.path.relpath(program, root)}")


def build_initramfs(runner, path: str, kernel_root: str, release: str, busybox: str, work: str) -> None:
    """run-tests' initramfs (its INIT and RUN_PLAN: the root over 9p, chroot, the plan), with arm64's busybox
    and modules."""
    archive = runner.Cpio()
    for directory in ["bin", "dev", "proc", "sys", "host", "modules"]:
        archive.directory(directory)
    archive.character_device("dev/console", 5, 1)
    with open(busybox, "rb") as f:
        archive.file("bin/busybox", f.read())
    names = []
    for module in runner.module_dependencies(kernel_root, release, MODULES):
        names.append(os.path.basename(module))
        with open(module, "rb") as f:
            archive.file(f"modules/{names[-1]}", f.read(), 0o644)
    init = runner.INIT.format(modules=" ".join(names), work=work, finish=runner.RUN_PLAN.format(work=work),
                              uncover=runner.uncover(["/tmp", "/run"], work, remount_work=False))
    archive.file("init", init.encode())
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(archive.finish())
