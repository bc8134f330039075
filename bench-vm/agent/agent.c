// SPDX-License-Identifier: GPL-2.0
/*
 * agent.c - the bench-vm guest agent: PID 1 of the benchmark's initramfs.
 *
 * It reproduces the changelogs' procedure on two label-less emulated
 * NVDIMMs: namespace0.0 becomes fsdax with map=dev (pfn device, nd_pmem),
 * namespace1.0 devdax with align=2M (dax device, dax_pmem).  With
 * mem_ns=1, a third one, namespace2.0, becomes devdax with align=2M and
 * map=mem, reported as "dax_pmem_mem": its struct pages live in guest RAM,
 * without an altmap, so its compound pages get the optimised vmemmap
 * (most tails share one vmemmap page) that map=dev never has.  For each
 * device it does the first binding and N rebinds through sysfs and takes,
 * per bind, memmap_init_zone_device()'s pr_debug line from /dev/kmsg (the
 * kernel command line turns it on with dyndbg=) and its own
 * CLOCK_MONOTONIC time around the bind.
 *
 * Results go to the host as tab-separated lines on its virtio-serial
 * port: protocol.h names the port and each line and its fields (one
 * definition for this agent and bench-vm/collect.c, which turns them into
 * records); the console is never parsed, so kernel messages cannot
 * corrupt them.
 * Every failure becomes an error line and a power-off, never a hang (the
 * host's watchdog is for a hung kernel, or for hang=1).
 *
 * Model windows (bench-vm/plugin, run.sh --model cache): the write of
 * each bind is bracketed by two NOPs that only the plugin gives a meaning
 * to, "nopl 0x4d564201(%rax)" (open) and "nopl 0x4d564202(%rax)" (close)
 * (bench-vm/plugin/decode.h, MARKER_MAGIC): a QEMU 7.2 plugin cannot read
 * registers but sees every instruction it translates.  Everything the
 * vCPU executes in between, the agent's open/write/close of the sysfs
 * attribute and all the kernel does for them, interrupts included, is
 * the window.  Its counts are exact, equal on every boot, because
 * nothing the host times reaches the guest: run.sh fixes the guest's
 * random seed and wall clock and has this port's kicks handled at once,
 * and the agent sends nothing inside a window.  Windows are numbered
 * from 1 in the order opened, by the agent and the plugin alike; a
 * sample's window= is its bind's.  Without the plugin the markers are
 * NOPs.  synthetic=N copies a known buffer of
 * N bytes with a MOV loop, a MOVNTI loop (then SFENCE), a MOVNTDQ loop
 * and REP MOVSB, each in a window of its own, checks each copy and
 * powers off: the proof that the model counts what it says (t0395).
 *
 * Options, as key=value arguments after "--" on the kernel command line,
 * are declared in the table opts[]; "help" lists them.
 */
#define _GNU_SOURCE	/* O_DIRECT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/compiler.h"	/* __printf, __noreturn */

#include "kmsg.h"
#include "protocol.h"
#include "../plugin/decode.h"	/* MARKER_MAGIC, MARKER_OPEN, MARKER_CLOSE */
#include "../plugin/size.h"	/* parse_size, shared with the plugin */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PORT_NAME AGENT_PORT
/* the struct page digest module (bench-vm/pages), when pages=1 */
#define PAGES_KO "/bench_vm_pages.ko"
#define PAGES_PREFIX "bench_vm_pages: "
/* the kernel's lib/test_hmm.c, when hmm=1; its DEVMEM_CHUNK_SIZE */
#define HMM_KO "/test_hmm.ko"
#define HMM_CHUNK (256ULL << 20)
#define HMM_CHUNK_LINE "added new 256 MB chunk "
#define HMM_FMT "\tprivate=%d\tcoherent=%d\tpages=%lu\tlines=%d\tmemmap_ms=%lu\tload_us=%llu\twindow=%u"
#define ND_DEVICES "/sys/bus/nd/devices"
#define ND_DRIVERS "/sys/bus/nd/drivers"
/* the memmap line follows the bind synchronously; this is a safety net */
#define KMSG_WAIT_MS 5000
/* virtio-serial ports appear from a workqueue, possibly after init runs */
#define PORT_WAIT_MS 10000

static unsigned long long opt_rebinds = 30;
static unsigned long long opt_dax_align = 2 << 20;
static unsigned long long opt_fsdax_align;	/* 0: the kernel's default */
static unsigned long long opt_hang;
static unsigned long long opt_probe;
static unsigned long long opt_pages;
static unsigned long long opt_mem_ns;
static unsigned long long opt_synthetic;
static unsigned long long opt_spin;
static unsigned long long opt_hmm;

static const struct opt {
	const char *name;
	unsigned long long *val;
	const char *desc;
} opts[] = {
	{ "rebinds", &opt_rebinds, "rebinds per driver after the first binding" },
	{ "dax_align", &opt_dax_align, "devdax align in bytes (K/M/G suffixes)" },
	{ "fsdax_align", &opt_fsdax_align, "fsdax align in bytes, 0: kernel default" },
	{ "hang", &opt_hang, "1: sleep forever after hello (tests the watchdog)" },
	{ "probe", &opt_probe, "1: power off after hello (does this accel boot?)" },
	{ "pages", &opt_pages, "1: digest the struct pages with " PAGES_KO },
	{ "mem_ns", &opt_mem_ns, "1: namespace2.0 as devdax with map=mem too" },
	{ "synthetic", &opt_synthetic, "N: only the model's synthetic copies of N bytes" },
	{ "spin", &opt_spin, "1: a busy task beside the binds; their preemptions on the console" },
	{ "hmm", &opt_hmm, "1: load " HMM_KO " in a model window, after the binds" },
};

static int port_fd = -1;
static int kmsg_fd = -1;
static const char *cur_step = "start";

static __printf(1, 2) void send_line(const char *fmt, ...);
static __printf(1, 2) __noreturn void fail(const char *fmt, ...);

static unsigned long long now_us(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (unsigned long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static __noreturn void power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	/* not reached; PID 1 must not exit (that panics), so wait */
	for (;;)
		pause();
}

static void write_all(int fd, const char *s, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

/* One protocol line; tabs and newlines inside fields would break it. */
static void vsend_line(const char *fmt, va_list ap)
{
	char buf[8192];
	int n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);

	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (port_fd >= 0)
		write_all(port_fd, buf, (size_t)n);
}

static void send_line(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsend_line(fmt, ap);
	va_end(ap);
}

static void clean_field(char *s)
{
	for (; *s; s++)
		if (*s == '\t' || *s == '\n' || *s == '\r')
			*s = ' ';
}

static void fail(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	clean_field(msg);
	send_line(AGENT_ERROR "\tstep=%s\tmsg=%s", cur_step, msg);
	/* also on the console, for a human reading console.log */
	dprintf(2, "bench-vm-agent: %s: %s\n", cur_step, msg);
	power_off();
}

static void enter_step(const char *name)
{
	cur_step = name;
	send_line(AGENT_STEP "\tname=%s", name);
}

static int path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static void write_attr(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	n = write(fd, val, len);
	if (n < 0)
		fail("write '%s' to %s: %s", val, path, strerror(errno));
	if ((size_t)n != len)
		fail("write '%s' to %s: short write", val, path);
	close(fd);
}

static void read_attr(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	n = read(fd, buf, size - 1);
	if (n < 0)
		fail("read %s: %s", path, strerror(errno));
	close(fd);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
}

static __printf(3, 4) void attr_path(char *buf, size_t size, const char *fmt, ...);
static void attr_path(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size)
		fail("path too long: %s", buf);
}

static void mount_fs(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) && errno != EBUSY)
		fail("mount %s on %s: %s", type, dir, strerror(errno));
}

/* The /dev node of the virtio-serial port named PORT_NAME. */
static int open_port(void)
{
	char path[512], name[128];
	struct dirent *de;
	int waited, fd;
	DIR *d;

	for (waited = 0; waited < PORT_WAIT_MS; waited += 10) {
		d = opendir("/sys/class/virtio-ports");
		while (d && (de = readdir(d))) {
			FILE *f;

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name",
				 de->d_name);
			f = fopen(path, "re");
			if (!f)
				continue;
			if (!fgets(name, sizeof(name), f))
				name[0] = '\0';
			fclose(f);
			name[strcspn(name, "\n")] = '\0';
			if (strcmp(name, PORT_NAME))
				continue;
			snprintf(path, sizeof(path), "/dev/%s", de->d_name);
			closedir(d);
			fd = open(path, O_WRONLY | O_CLOEXEC);
			if (fd < 0)
				fail("open %s: %s", path, strerror(errno));
			return fd;
		}
		if (d)
			closedir(d);
		usleep(10000);
	}
	fail("no virtio-serial port %s after %d ms: no -device virtserialport,name=%s?",
	     PORT_NAME, PORT_WAIT_MS, PORT_NAME);
}

static void parse_opts(int argc, char **argv)
{
	size_t i;
	int a;

	for (a = 1; a < argc; a++) {
		const char *eq = strchr(argv[a], '=');
		size_t n = eq ? (size_t)(eq - argv[a]) : strlen(argv[a]);

		/*
		 * x86 reads nokaslr and no5lvl in the decompressor only, so
		 * the kernel passes them on to init as unknown words (run.sh
		 * gives nokaslr, checked.sh kmsan no5lvl)
		 */
		if (!strcmp(argv[a], "nokaslr") || !strcmp(argv[a], "no5lvl"))
			continue;

		for (i = 0; i < ARRAY_SIZE(opts); i++)
			if (strlen(opts[i].name) == n && !strncmp(argv[a], opts[i].name, n))
				break;
		if (i == ARRAY_SIZE(opts) || !eq) {
			for (i = 0; i < ARRAY_SIZE(opts); i++)
				dprintf(2, "bench-vm-agent: option %s=N: %s\n",
					opts[i].name, opts[i].desc);
			fail("unknown option '%s' (options: key=value, listed on the console)",
			     argv[a]);
		}
		if (parse_size(eq + 1, opts[i].val))
			fail("option %s: '%s' is not a number", opts[i].name, eq + 1);
	}
}

/* The first processor block of /proc/cpuinfo, as one "cpu" line. */
static void send_cpu(void)
{
	/* static: the table below points into them */
	static char vendor[64], family[16], model[16], stepping[16];
	static char model_name[128], flags[4096];
	char line[4096];
	static const struct {
		const char *key;
		char *dst;
		size_t size;
	} keys[] = {
		{ "vendor_id", vendor, sizeof(vendor) },
		{ "cpu family", family, sizeof(family) },
		{ "model", model, sizeof(model) },
		{ "stepping", stepping, sizeof(stepping) },
		{ "model name", model_name, sizeof(model_name) },
		{ "flags", flags, sizeof(flags) },
	};
	FILE *f = fopen("/proc/cpuinfo", "re");
	size_t i;

	if (!f)
		fail("open /proc/cpuinfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f) && line[0] != '\n') {
		char *colon = strchr(line, ':');
		size_t klen;

		if (!colon)
			continue;
		for (klen = (size_t)(colon - line);
		     klen && (line[klen - 1] == '\t' || line[klen - 1] == ' '); klen--)
			;
		for (i = 0; i < ARRAY_SIZE(keys); i++) {
			if (strlen(keys[i].key) != klen || strncmp(line, keys[i].key, klen))
				continue;
			snprintf(keys[i].dst, keys[i].size, "%s",
				 colon[1] == ' ' ? colon + 2 : colon + 1);
			keys[i].dst[strcspn(keys[i].dst, "\n")] = '\0';
			clean_field(keys[i].dst);
		}
	}
	fclose(f);
	if (!flags[0])
		fail("/proc/cpuinfo has no flags line");
	send_line(AGENT_CPU
		  "\tvendor=%s\tfamily=%s\tmodel=%s\tstepping=%s\tmodel_name=%s\tflags=%s",
		  vendor, family, model, stepping, model_name, flags);
}

/*
 * The CPU mitigations the kernel chose at boot for the CPU it found, a
 * "vuln" line per file of /sys/devices/system/cpu/vulnerabilities
 * ("spectre_v2", "Mitigation: Retpolines; ..."): a figure under return
 * thunks or retpolines is another than one without.  None when the
 * kernel has no such directory.
 */
static void send_vulnerabilities(void)
{
	static const char dir[] = "/sys/devices/system/cpu/vulnerabilities";
	struct dirent **ents;
	char path[512], state[512];
	int i, n = scandir(dir, &ents, NULL, alphasort);
	FILE *f;

	for (i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			f = fopen(path, "re");
			if (!f)
				fail("open %s: %s", path, strerror(errno));
			if (!fgets(state, sizeof(state), f))
				state[0] = '\0';
			fclose(f);
			state[strcspn(state, "\n")] = '\0';
			clean_field(state);
			send_line(AGENT_VULN "\tname=%s\tstate=%s", ents[i]->d_name, state);
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

/* Forget what /dev/kmsg holds so far: only the next bind's lines count. */
static void kmsg_skip(void)
{
	if (lseek(kmsg_fd, 0, SEEK_END) < 0)
		fail("seek /dev/kmsg: %s", strerror(errno));
}

/*
 * The next /dev/kmsg record into @rec (its text in @buf): 1; 0 when
 * there is none yet; -EPIPE when records were overwritten before this
 * read (the caller decides whether that matters).
 */
static int kmsg_next(char *buf, size_t size, struct kmsg_rec *rec)
{
	ssize_t n = read(kmsg_fd, buf, size - 1);

	if (n < 0 && errno == EPIPE)
		return -EPIPE;
	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n < 0)
		fail("read /dev/kmsg: %s", strerror(errno));
	buf[n] = '\0';
	if (kmsg_parse(buf, (size_t)n, rec))
		fail("/dev/kmsg: malformed record '%.80s'", buf);
	return 1;
}

/* Whether @rec is memmap_init_zone_device's line; its pages and ms added. */
static int kmsg_memmap_add(const struct kmsg_rec *rec, unsigned long *pages,
			   unsigned long *ms)
{
	unsigned long p, m;
	int r = kmsg_memmap(rec, &p, &m);

	if (r < 0)
		fail("/dev/kmsg: unexpected memmap_init_zone_device line '%.*s'",
		     (int)rec->text_len, rec->text);
	if (r > 0) {
		*pages += p;
		*ms += m;
	}
	return r;
}

/*
 * The memmap_init_zone_device lines since kmsg_skip(): wait for the first
 * (up to KMSG_WAIT_MS), then take whatever else is already there.  One
 * pgmap range gives one line; sum them in case a device has several.
 */
static int kmsg_memmap_lines(unsigned long *pages, unsigned long *ms)
{
	char buf[8192];
	struct kmsg_rec rec;
	struct pollfd pfd = { .fd = kmsg_fd, .events = POLLIN };
	int lines = 0, r;

	*pages = 0;
	*ms = 0;
	for (;;) {
		r = kmsg_next(buf, sizeof(buf), &rec);
		if (r == -EPIPE)	/* overwritten records: go on */
			continue;
		if (r == 0) {
			if (lines)
				return lines;
			r = poll(&pfd, 1, KMSG_WAIT_MS);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return 0;
			continue;
		}
		lines += kmsg_memmap_add(&rec, pages, ms);
	}
}

static int is_bound(const char *dev)
{
	char path[256];

	attr_path(path, sizeof(path), ND_DEVICES "/%s/driver", dev);
	return path_exists(path);
}

/*
 * Wait, busy, until the next 10 ms boundary of the guest's clock at least
 * 2 ms away.  Under icount (bench-vm/run.sh --clock icount) the guest's
 * virtual time up to here can move by some microseconds between two boots
 * (its virtio-serial port comes up when the host gets to it), and a bind
 * that waits for a timer tick then waits a tick more or less (1 ms of a
 * bind, seen here): started from a fixed phase, every bind waits the
 * same.  Busy, not asleep: an idle guest under icount sleep=off jumps to
 * its next timer at once, so the host would complete our last port writes
 * inside the timed bind (14 us of a 57 ms one, seen here); spinning, their
 * completions land before it.  Costs 2-12 ms before each timed write,
 * outside its timing.
 */
static void align_clock(void)
{
	unsigned long long now = now_us(CLOCK_MONOTONIC);
	unsigned long long until = ((now + 2000) / 10000 + 1) * 10000;

	while (now_us(CLOCK_MONOTONIC) < until)
		;
}

/* Windows opened so far: the number of the last one. */
static unsigned int model_windows;

/* Open a model window (the marker NOPs of the header comment). */
static void model_open(void)
{
	model_windows++;
	asm volatile(".byte 0x0f, 0x1f, 0x80\n\t.long %c0" : : "i" (MARKER_MAGIC | MARKER_OPEN)
		     : "memory");
}

static void model_close(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80\n\t.long %c0" : : "i" (MARKER_MAGIC | MARKER_CLOSE)
		     : "memory");
}

/* How often this task was preempted so far (/proc/self/status). */
static unsigned long preemptions(void)
{
	char line[256];
	unsigned long n;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		fail("open /proc/self/status: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "nonvoluntary_ctxt_switches: %lu", &n) == 1) {
			fclose(f);
			return n;
		}
	fclose(f);
	fail("/proc/self/status: no nonvoluntary_ctxt_switches line");
}

/*
 * spin=1 (bench-vm/checked.sh debug-vm): a task that never sleeps, beside
 * the binds, so that a preemptible kernel (PREEMPT full) preempts the
 * bind, memmap_init_zone_device()'s loops included, whenever the
 * scheduler's tick finds the spinner owed the CPU: what a one-CPU guest
 * with nothing else to run never does.  It dies with the guest.
 */
static void start_spinner(void)
{
	pid_t pid = fork();

	if (pid < 0)
		fail("fork the spinner: %s", strerror(errno));
	if (pid == 0)
		for (;;)
			__asm__ volatile("" ::: "memory");
}

/*
 * Write @dev to the driver's bind or unbind attribute; the time of the
 * write in microseconds, from a 10 ms boundary of the clock.  Checks that
 * the device ended up as asked.  A bind is a model window.
 */
static unsigned long long set_bound(const char *drv, const char *dev,
				    int bind)
{
	const char *op = bind ? "bind" : "unbind";
	unsigned long long t0, t1;
	unsigned long pre = 0;
	char path[256];

	attr_path(path, sizeof(path), ND_DRIVERS "/%s/%s", drv, op);
	align_clock();
	if (opt_spin && bind)
		pre = preemptions();
	t0 = now_us(CLOCK_MONOTONIC);
	if (bind)
		model_open();
	write_attr(path, dev);
	if (bind)
		model_close();
	t1 = now_us(CLOCK_MONOTONIC);
	/* the console, not the port: checked boots count them, no record does */
	if (opt_spin && bind)
		dprintf(2, "bench-vm-agent: preempted %lu times while binding %s to %s\n",
			preemptions() - pre, dev, drv);
	if (!!is_bound(dev) != !!bind)
		fail("%s %s (driver %s): the write succeeded but %s is %s",
		     op, dev, drv, dev, bind ? "not bound" : "still bound");
	return t1 - t0;
}

static unsigned long long bind_dev(const char *drv, const char *dev)
{
	return set_bound(drv, dev, 1);
}

static unsigned long long unbind_dev(const char *drv, const char *dev)
{
	return set_bound(drv, dev, 0);
}

#define SAMPLE_FMT AGENT_SAMPLE \
	"\tdriver=%s\tcase=%s\tindex=%llu\tpages=%lu\tmemmap_ms=%lu\tlines=%d\tbind_us=%llu\tunbind_us=%llu\tboot_us=%llu\twindow=%u"

/*
 * The first binding, then opt_rebinds unbind+bind pairs, one sample each,
 * reported under @label (the driver's name, or dax_pmem_mem).
 */
static void bind_series(const char *label, const char *drv, const char *dev)
{
	unsigned long long i, bind_us, unbind_us = 0;
	unsigned long pages, ms;
	int lines;

	for (i = 0; i <= opt_rebinds; i++) {
		if (i)
			unbind_us = unbind_dev(drv, dev);
		kmsg_skip();
		bind_us = bind_dev(drv, dev);
		lines = kmsg_memmap_lines(&pages, &ms);
		if (!lines)
			fail("bind %s to %s: no '%s' line in /dev/kmsg within %d ms (%s)",
			     dev, drv, "memmap_init_zone_device initialised",
			     KMSG_WAIT_MS,
			     "is dyndbg=\"func memmap_init_zone_device +p\" on the kernel command line?");
		send_line(SAMPLE_FMT, label, i ? "rebind" : "first", i, pages, ms, lines,
			  bind_us, unbind_us, now_us(CLOCK_BOOTTIME), model_windows);
	}
}

/*
 * Claim the raw namespace<region>.0 for the seed device (pfn or dax) of
 * its region: the sysfs sequence of "ndctl create-namespace -f -e
 * namespaceX.0 -m fsdax|devdax -M dev|mem" on label-less DIMMs.  @map is
 * "pmem" (map=dev: the struct pages live on the device) or "ram"
 * (map=mem: in RAM).  Returns the device.
 */
static void setup_claim(int region, const char *seed_attr, const char *map,
			unsigned long long align, char *dev, size_t size)
{
	char path[256], ns[64], uuid[64], val[32];

	snprintf(ns, sizeof(ns), "namespace%d.0", region);
	if (is_bound(ns)) {	/* the raw namespace binds to nd_pmem at boot */
		attr_path(path, sizeof(path), ND_DEVICES "/%s/driver/unbind", ns);
		write_attr(path, ns);
	}
	attr_path(path, sizeof(path), ND_DEVICES "/region%d/%s", region, seed_attr);
	read_attr(path, dev, size);
	if (!dev[0])
		fail("region%d has no %s device (kernel built without it?)", region,
		     seed_attr);
	read_attr("/proc/sys/kernel/random/uuid", uuid, sizeof(uuid));
	attr_path(path, sizeof(path), ND_DEVICES "/%s/uuid", dev);
	write_attr(path, uuid);
	attr_path(path, sizeof(path), ND_DEVICES "/%s/mode", dev);
	write_attr(path, map);
	if (align) {
		snprintf(val, sizeof(val), "%llu", align);
		attr_path(path, sizeof(path), ND_DEVICES "/%s/align", dev);
		write_attr(path, val);
	}
	attr_path(path, sizeof(path), ND_DEVICES "/%s/namespace", dev);
	write_attr(path, ns);
}

/* The name of the first entry of DIR starting with PREFIX, in BUF. */
static void first_entry(const char *dir, const char *prefix, char *buf, size_t size)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		fail("open %s: %s", dir, strerror(errno));
	buf[0] = '\0';
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix))) {
			snprintf(buf, size, "%s", de->d_name);
			break;
		}
	closedir(d);
	if (!buf[0])
		fail("no %s* in %s", prefix, dir);
}

static void fill_pattern(unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)((i * 31 + seed) ^ (i >> 12));
}

/* The first mismatching byte of A and B (len bytes), or -1. */
static long first_diff(const unsigned char *a, const unsigned char *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (a[i] != b[i])
			return (long)i;
	return -1;
}

#define CHECK_LEN (2UL << 20)

/* The fsdax device works: O_DIRECT write, then read back, of a pattern. */
static void check_pmem_block(const char *pfn)
{
	char dir[256], name[256], path[300];
	unsigned char *w, *r;
	long off;
	int fd;

	attr_path(dir, sizeof(dir), ND_DEVICES "/%s/block", pfn);
	first_entry(dir, "pmem", name, sizeof(name));
	snprintf(path, sizeof(path), "/dev/%s", name);
	if (posix_memalign((void **)&w, 4096, CHECK_LEN) ||
	    posix_memalign((void **)&r, 4096, CHECK_LEN))
		fail("%s: out of memory", path);
	fill_pattern(w, CHECK_LEN, 7);
	memset(r, 0, CHECK_LEN);
	fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		fail("open %s O_DIRECT: %s", path, strerror(errno));
	if (pwrite(fd, w, CHECK_LEN, 4 << 20) != (ssize_t)CHECK_LEN)
		fail("O_DIRECT write of %lu bytes to %s: %s", CHECK_LEN, path, strerror(errno));
	if (pread(fd, r, CHECK_LEN, 4 << 20) != (ssize_t)CHECK_LEN)
		fail("O_DIRECT read of %lu bytes from %s: %s", CHECK_LEN, path, strerror(errno));
	close(fd);
	off = first_diff(w, r, CHECK_LEN);
	if (off >= 0)
		fail("%s: O_DIRECT read back differs at byte %ld", path, off);
	free(w);
	free(r);
	send_line(AGENT_CHECK "\tdevice=%s\twhat=odirect\tbytes=%lu\tresult=ok", name, CHECK_LEN);
}

/* The dax device of region @region ("dax<region>.N"), in @name. */
static void dax_device(int region, char *name, size_t size)
{
	char prefix[32];

	snprintf(prefix, sizeof(prefix), "dax%d.", region);
	first_entry("/sys/bus/dax/devices", prefix, name, size);
}

/*
 * The devdax device of @region works: mmap, write a pattern, read it in a
 * new map.  Reported as check @what.
 */
static void check_devdax_mmap(int region, const char *what)
{
	char name[256], path[300];
	unsigned char *w, *m;
	long off;
	int fd;

	dax_device(region, name, sizeof(name));
	snprintf(path, sizeof(path), "/dev/%s", name);
	w = malloc(CHECK_LEN);
	if (!w)
		fail("%s: out of memory", path);
	fill_pattern(w, CHECK_LEN, 11);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	/* devdax maps whole align units: 2 MiB, at a 2 MiB offset */
	m = mmap(NULL, CHECK_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		fail("mmap %lu bytes of %s: %s", CHECK_LEN, path, strerror(errno));
	memcpy(m, w, CHECK_LEN);
	munmap(m, CHECK_LEN);
	m = mmap(NULL, CHECK_LEN, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		fail("mmap %lu bytes of %s again: %s", CHECK_LEN, path, strerror(errno));
	off = first_diff(w, m, CHECK_LEN);
	if (off >= 0)
		fail("%s: mmap read back differs at byte %ld", path, off);
	munmap(m, CHECK_LEN);
	close(fd);
	free(w);
	send_line(AGENT_CHECK "\tdevice=%s\twhat=%s\tbytes=%lu\tresult=ok", name, what, CHECK_LEN);
}

/*
 * The struct page digest of a bound device's range (sysfs resource and
 * size): load bench_vm_pages.ko on it, forward its lines, unload it.
 */
static void digest_range(const char *drv, unsigned long long start, unsigned long long size);

static void check_pages(const char *drv, const char *sysdir)
{
	char path[300], val[64];
	unsigned long long start, size;

	attr_path(path, sizeof(path), "%s/resource", sysdir);
	read_attr(path, val, sizeof(val));
	start = strtoull(val, NULL, 0);
	attr_path(path, sizeof(path), "%s/size", sysdir);
	read_attr(path, val, sizeof(val));
	size = strtoull(val, NULL, 0);
	if (!start || !size)
		fail("%s: no resource/size to digest", sysdir);
	digest_range(drv, start, size);
}

/* The struct page digest of @size bytes at @start, as @drv's lines. */
static void digest_range(const char *drv, unsigned long long start, unsigned long long size)
{
	char params[128], buf[8192];
	struct kmsg_rec rec;
	size_t n = strlen(PAGES_PREFIX);
	int fd, r, range = 0;

	snprintf(params, sizeof(params), "start_pfn=%llu nr_pages=%llu", start >> 12,
		 size >> 12);
	fd = open(PAGES_KO, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail("open %s: %s (pages=1 needs the module in the initramfs)", PAGES_KO,
		     strerror(errno));
	kmsg_skip();
	if (syscall(SYS_finit_module, fd, params, 0))
		fail("load %s %s: %s (see console.log)", PAGES_KO, params, strerror(errno));
	close(fd);
	while ((r = kmsg_next(buf, sizeof(buf), &rec))) {
		if (r == -EPIPE)
			fail("/dev/kmsg: %s lines lost (ring buffer overrun)", PAGES_PREFIX);
		/* the module's own lines, not the kernel's about loading it */
		if (rec.text_len < n + 6 ||
		    memcmp(rec.text, PAGES_PREFIX, n) ||
		    (strncmp(rec.text + n, "field ", 6) && strncmp(rec.text + n, "class ", 6) &&
		     strncmp(rec.text + n, "range ", 6) && strncmp(rec.text + n, "pageblock ", 10)))
			continue;
		send_line(AGENT_PAGES "\tdriver=%s\tline=%.*s", drv, (int)(rec.text_len - n),
			  rec.text + n);
		range |= !strncmp(rec.text + n, "range ", 6);
	}
	if (!range)
		fail("%s printed no range line", PAGES_KO);
	if (syscall(SYS_delete_module, "bench_vm_pages", O_NONBLOCK))
		fail("unload bench_vm_pages: %s", strerror(errno));
}

/*
 * Whether [@start, @end] is free in /proc/iomem: every range it overlaps
 * is a bus window ("PCI Bus ..."), address space routed to a bus that no
 * device claims there, and none is anything else (RAM, a BAR, a reserved
 * range, the NVDIMMs).
 */
static int iomem_free(unsigned long long start, unsigned long long end)
{
	unsigned long long s, e;
	char line[256], *name;
	int free = 1;
	FILE *f = fopen("/proc/iomem", "r");

	if (!f)
		fail("open /proc/iomem: %s", strerror(errno));
	while (free && fgets(line, sizeof(line), f)) {
		name = strstr(line, " : ");
		if (sscanf(line, " %llx-%llx", &s, &e) != 2 || !name)
			fail("/proc/iomem: unexpected line '%.80s'", line);
		if (e >= start && s <= end && strncmp(name + 3, "PCI Bus ", 8))
			free = 0;
	}
	fclose(f);
	return free;
}

/* The CPU's physical address bits (/proc/cpuinfo "address sizes"). */
static unsigned int phys_bits(void)
{
	char line[256];
	unsigned int bits = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		fail("open /proc/cpuinfo: %s", strerror(errno));
	while (!bits && fgets(line, sizeof(line), f))
		if (sscanf(line, "address sizes : %u bits physical", &bits) != 1)
			bits = 0;
	fclose(f);
	if (bits < 32 || bits > 52)
		fail("/proc/cpuinfo: no address sizes line with 32 to 52 physical bits");
	return bits;
}

/*
 * hmm=1: load the kernel's own test_hmm.ko in a model window.  Its init
 * memremap_pages()s one chunk for each of its devices: two
 * MEMORY_DEVICE_PRIVATE (at free addresses it picks) and, with
 * spm_addr_dev0/1, two MEMORY_DEVICE_COHERENT, given here in the lowest
 * free GiB of /proc/iomem above 4 GiB (a bus window's, as a device's
 * coherent memory would be; below the CPU's physical address bits):
 * nothing is there,
 * and nothing needs to be, since memmap_init_zone_device() writes only
 * their struct pages.
 * No owner marks these pgmaps for streaming, so the window's streaming
 * stores must be none (bench-vm/checked.sh hmm checks the records).
 * Every chunk must have been added and every memmap line seen.  With
 * pages=1 the first private chunk and the coherent one at spm_addr_dev0
 * are digested (as hmm_private, hmm_coherent) for bench-vm-report to
 * compare between kernels.
 */
static void load_hmm(void)
{
	unsigned long long spm0, spm1, top, t0, t1;
	unsigned long pages = 0, ms = 0, first, private0 = 0;
	int fd, r, lines = 0, chunks = 0, coherent = 0;
	struct kmsg_rec rec;
	char params[128], buf[8192];

	/*
	 * The lowest free GiB above 4 GiB for both: the private chunks come
	 * from the top (request_free_mem_region()), and a coherent one put
	 * where a private one is would fail the load (memremap_pages():
	 * "Conflicting mapping in same section")
	 */
	top = 1ULL << phys_bits();
	for (spm0 = 1ULL << 32; spm0 + (1ULL << 30) <= top; spm0 += 1ULL << 30)
		if (iomem_free(spm0, spm0 + 2 * HMM_CHUNK - 1))
			break;
	if (spm0 + (1ULL << 30) > top)
		fail("hmm: no free GiB in /proc/iomem above 4 GiB for two %llu MiB chunks",
		     HMM_CHUNK >> 20);
	spm1 = spm0 + HMM_CHUNK;
	snprintf(params, sizeof(params), "spm_addr_dev0=%#llx spm_addr_dev1=%#llx", spm0, spm1);
	fd = open(HMM_KO, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail("open %s: %s (hmm=1 needs the module in the initramfs: run.sh --hmm)", HMM_KO,
		     strerror(errno));
	kmsg_skip();
	align_clock();
	t0 = now_us(CLOCK_MONOTONIC);
	model_open();
	r = syscall(SYS_finit_module, fd, params, 0);
	model_close();
	t1 = now_us(CLOCK_MONOTONIC);
	if (r)
		fail("load %s %s: %s (see console.log)", HMM_KO, params, strerror(errno));
	close(fd);
	/* the module's init is synchronous: its lines are all there */
	while ((r = kmsg_next(buf, sizeof(buf), &rec))) {
		if (r == -EPIPE)
			fail("/dev/kmsg: lines lost while %s loaded (ring buffer overrun)", HMM_KO);
		if (kmsg_memmap_add(&rec, &pages, &ms)) {
			lines++;
			continue;
		}
		/* "added new 256 MB chunk (total 1 chunks, 256 MB) PFNs [0x... 0x...)" */
		if (rec.text_len < sizeof(HMM_CHUNK_LINE) ||
		    memcmp(rec.text, HMM_CHUNK_LINE, sizeof(HMM_CHUNK_LINE) - 1))
			continue;
		chunks++;
		r = sscanf(rec.text, HMM_CHUNK_LINE "(total %*u chunks, %*u MB) PFNs [%lx", &first);
		if (r != 1)
			fail("/dev/kmsg: unexpected test_hmm chunk line '%.*s'", (int)rec.text_len,
			     rec.text);
		if (first == spm0 >> 12 || first == spm1 >> 12)
			coherent++;
		else if (!private0)
			private0 = first;
	}
	if (chunks != 4 || coherent != 2 || lines != 4 || pages != 4 * (HMM_CHUNK >> 12))
		fail("%s: %d chunks (%d coherent), %d memmap lines, %lu pages: not 4 (2), 4, %llu",
		     HMM_KO, chunks, coherent, lines, pages, 4 * (HMM_CHUNK >> 12));
	send_line(AGENT_HMM HMM_FMT, chunks - coherent, coherent, pages, lines, ms, t1 - t0,
		  model_windows);
	/* pages=1: a chunk of each type, digested as a device's range is */
	if (opt_pages) {
		enter_step("hmm-pages");
		digest_range("hmm_private", (unsigned long long)private0 << 12, HMM_CHUNK);
		digest_range("hmm_coherent", spm0, HMM_CHUNK);
	}
}

/*
 * The synthetic copies (synthetic=N): each kernel of copy_kinds[] copies
 * N bytes (a multiple of 64, 16-byte aligned buffers) in its own loop of
 * known instructions, written in asm so that no compiler turns it into
 * something else.
 */
static void copy_mov(void *dst, const void *src, size_t n)
{
	asm volatile("1:\tmov (%1), %%rax\n\tmov %%rax, (%0)\n\t"
		     "add $8, %0\n\tadd $8, %1\n\tsub $8, %2\n\tjnz 1b"
		     : "+r" (dst), "+r" (src), "+r" (n) : : "rax", "memory", "cc");
}

static void copy_movnti(void *dst, const void *src, size_t n)
{
	asm volatile("1:\tmov (%1), %%rax\n\tmovnti %%rax, (%0)\n\t"
		     "add $8, %0\n\tadd $8, %1\n\tsub $8, %2\n\tjnz 1b\n\tsfence"
		     : "+r" (dst), "+r" (src), "+r" (n) : : "rax", "memory", "cc");
}

static void copy_movntdq(void *dst, const void *src, size_t n)
{
	asm volatile("1:\tmovdqa (%1), %%xmm0\n\tmovntdq %%xmm0, (%0)\n\t"
		     "add $16, %0\n\tadd $16, %1\n\tsub $16, %2\n\tjnz 1b\n\tsfence"
		     : "+r" (dst), "+r" (src), "+r" (n) : : "xmm0", "memory", "cc");
}

static void copy_rep_movsb(void *dst, const void *src, size_t n)
{
	asm volatile("rep movsb" : "+D" (dst), "+S" (src), "+c" (n) : : "memory");
}

static const struct copy_kind {
	const char *name;
	void (*copy)(void *dst, const void *src, size_t n);
} copy_kinds[] = {
	{ "mov", copy_mov },
	{ "movnti", copy_movnti },
	{ "movntdq", copy_movntdq },
	{ "rep_movsb", copy_rep_movsb },
};

/*
 * Every buffer is written before its window (no page fault inside one),
 * and each copy goes to a buffer of its own.
 */
static void run_synthetic(size_t n)
{
	unsigned char *src, *dst[ARRAY_SIZE(copy_kinds)];
	long off;
	size_t k;

	if (!n || n % 64 || n > (1UL << 30))
		fail("synthetic=%zu: not a multiple of 64 from 64 to 1G", n);
	if (posix_memalign((void **)&src, 4096, n))
		fail("synthetic: out of memory for %zu bytes", n);
	fill_pattern(src, n, 5);
	for (k = 0; k < ARRAY_SIZE(copy_kinds); k++) {
		if (posix_memalign((void **)&dst[k], 4096, n))
			fail("synthetic: out of memory for %zu bytes", n);
		memset(dst[k], 0, n);
	}
	for (k = 0; k < ARRAY_SIZE(copy_kinds); k++) {
		align_clock();
		model_open();
		copy_kinds[k].copy(dst[k], src, n);
		model_close();
		off = first_diff(src, dst[k], n);
		if (off >= 0)
			fail("synthetic: the %s copy differs at byte %ld", copy_kinds[k].name, off);
		send_line(AGENT_SYNTHETIC "\tkind=%s\tbytes=%zu\twindow=%u", copy_kinds[k].name, n,
			  model_windows);
	}
}

static void send_hello(void)
{
	char path[128], size0[32], size1[32], size2[48] = "";
	struct utsname u;

	uname(&u);
	snprintf(path, sizeof(path), ND_DEVICES "/namespace0.0/size");
	if (!path_exists(path))
		fail("no %s: the first NVDIMM is missing (%s)", ND_DEVICES "/namespace0.0",
		     "QEMU -machine nvdimm=on, -device nvdimm; kernel ACPI_NFIT, LIBNVDIMM");
	read_attr(path, size0, sizeof(size0));
	snprintf(path, sizeof(path), ND_DEVICES "/namespace1.0/size");
	if (!path_exists(path))
		fail("no %s: the second NVDIMM is missing", ND_DEVICES "/namespace1.0");
	read_attr(path, size1, sizeof(size1));
	if (opt_mem_ns) {
		snprintf(path, sizeof(path), ND_DEVICES "/namespace2.0/size");
		if (!path_exists(path))
			fail("no %s: mem_ns=1 needs a third NVDIMM", ND_DEVICES "/namespace2.0");
		memcpy(size2, "\tns2_size=", 10);
		read_attr(path, size2 + 10, sizeof(size2) - 10);
	}
	send_line(AGENT_HELLO "\tkernel=%s\tboot_us=%llu\tns0_size=%s\tns1_size=%s%s",
		  u.release, now_us(CLOCK_BOOTTIME), size0, size1, size2);
}

/*
 * A devdax device on namespace<region>.0: set it up with @map, bind and
 * rebind it (reported as @label), digest its struct pages, check it (the
 * check named @check).  The steps are named <@what>-setup, <@label>-binds,
 * <@what>-pages and <@what>-check.
 */
static void devdax_series(const char *what, const char *label, int region,
			  const char *map, const char *check)
{
	/* static: cur_step points into it until the next step */
	static char step[64];
	char dax[64], dir[128], name[256];

	snprintf(step, sizeof(step), "%s-setup", what);
	enter_step(step);
	setup_claim(region, "dax_seed", map, opt_dax_align, dax, sizeof(dax));
	snprintf(step, sizeof(step), "%s-binds", label);
	enter_step(step);
	bind_series(label, "dax_pmem", dax);
	if (opt_pages) {
		snprintf(step, sizeof(step), "%s-pages", what);
		enter_step(step);
		dax_device(region, name, sizeof(name));
		attr_path(dir, sizeof(dir), "/sys/bus/dax/devices/%s", name);
		check_pages(label, dir);
	}
	snprintf(step, sizeof(step), "%s-check", what);
	enter_step(step);
	check_devdax_mmap(region, check);
}

int main(int argc, char **argv)
{
	char pfn[64];

	mount_fs("proc", "/proc", "proc");
	mount_fs("sysfs", "/sys", "sysfs");
	mount_fs("devtmpfs", "/dev", "devtmpfs");
	cur_step = "port";
	port_fd = open_port();
	cur_step = "options";
	parse_opts(argc, argv);
	enter_step("hello");
	send_cpu();
	send_vulnerabilities();
	send_hello();
	if (opt_probe) {
		send_line(AGENT_DONE);
		power_off();
	}
	if (opt_synthetic) {
		enter_step("synthetic");
		run_synthetic(opt_synthetic);
		send_line(AGENT_DONE);
		power_off();
	}
	if (opt_hang) {
		enter_step("hang");
		for (;;)
			pause();
	}
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd < 0)
		fail("open /dev/kmsg: %s", strerror(errno));
	if (opt_spin)
		start_spinner();

	enter_step("fsdax-setup");
	/* "pmem": the struct pages live on the device itself (map=dev) */
	setup_claim(0, "pfn_seed", "pmem", opt_fsdax_align, pfn, sizeof(pfn));
	enter_step("nd_pmem-binds");
	bind_series("nd_pmem", "nd_pmem", pfn);
	/* the digest first: the data checks below change some struct pages */
	if (opt_pages) {
		char dir[128];

		enter_step("fsdax-pages");
		attr_path(dir, sizeof(dir), ND_DEVICES "/%s", pfn);
		check_pages("nd_pmem", dir);
	}
	enter_step("fsdax-check");
	check_pmem_block(pfn);

	devdax_series("devdax", "dax_pmem", 1, "pmem", "mmap");
	/* map=mem: "ram", the struct pages live in guest RAM */
	if (opt_mem_ns)
		devdax_series("devdax-mem", "dax_pmem_mem", 2, "ram", "mmap-mem");
	if (opt_hmm) {
		enter_step("hmm");
		load_hmm();
	}

	send_line(AGENT_DONE);
	power_off();
}
