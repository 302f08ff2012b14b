/*
 * The test driver of generated models (package cgen's tests): reads rows
 * in a compact sparse form, predicts each with the generated code and
 * writes the results, on the host (stdin, stdout) or on a Cortex-M under
 * qemu (-DMCU: files rows.bin and out.bin by semihosting).
 *
 * Input, per row: uint32 nnz, nnz uint32 indices (< NUM_FEATURES), nnz
 * float values. Output, per row: the double prediction DECISION returns
 * with the NUM_DECISIONS float decision values. Both in the target's byte
 * order (little-endian). PREDICT runs on every row on the host and on
 * every PREDICT_EVERY-th under qemu (emulated soft double is slow, and it
 * is DECISION's pass without the output); where it differs from
 * DECISION's prediction the driver stops with an error.
 */
#include <stddef.h>
#include <stdint.h>
#include MODEL_H

static float x[NUM_FEATURES];
static uint32_t idx[NUM_FEATURES];
static float val[NUM_FEATURES];

#ifdef MCU
/* Arm semihosting: the operation in r0, its argument block in r1. */
static uintptr_t semihost(uintptr_t op, const void *arg)
{
	register uintptr_t r0 __asm__("r0") = op;
	register const void *r1 __asm__("r1") = arg;
	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
	return r0;
}

enum { SYS_OPEN = 0x01, SYS_WRITE = 0x05, SYS_READ = 0x06, SYS_EXIT = 0x18 };
enum { STOPPED_EXIT = 0x20026, STOPPED_ERROR = 0x20023 };

static uintptr_t in_fd, out_fd;

/* Rows are read, and results written, a buffer at a time: each
 * semihosting call is a round trip out of the emulated core. */
static unsigned char in_buf[32768], out_buf[32768];
static size_t in_pos, in_len, out_len;

static uintptr_t open_file(const char *name, uintptr_t mode)
{
	uintptr_t a[3];
	size_t n = 0;
	while (name[n])
		n++;
	a[0] = (uintptr_t)name;
	a[1] = mode;
	a[2] = n;
	return semihost(SYS_OPEN, a);
}

static int get(void *p, size_t n)
{
	unsigned char *d = p;
	while (n > 0) {
		if (in_pos == in_len) {
			uintptr_t a[3];
			a[0] = in_fd;
			a[1] = (uintptr_t)in_buf;
			a[2] = sizeof in_buf;
			in_len = sizeof in_buf - semihost(SYS_READ, a); /* it returns the bytes not read */
			in_pos = 0;
			if (in_len == 0)
				return 0;
		}
		*d++ = in_buf[in_pos++];
		n--;
	}
	return 1;
}

static void flush(void)
{
	uintptr_t a[3];
	a[0] = out_fd;
	a[1] = (uintptr_t)out_buf;
	a[2] = out_len;
	semihost(SYS_WRITE, a);
	out_len = 0;
}

static void put(const void *p, size_t n)
{
	const unsigned char *s = p;
	while (n-- > 0) {
		if (out_len == sizeof out_buf)
			flush();
		out_buf[out_len++] = *s++;
	}
}

#define PREDICT_EVERY 16

static void stop(uintptr_t reason)
{
	for (;;)
		semihost(SYS_EXIT, (const void *)reason);
}
#else
#include <stdio.h>
static int get(void *p, size_t n) { return fread(p, 1, n, stdin) == n; }
static void put(const void *p, size_t n) { fwrite(p, 1, n, stdout); }
static void flush(void) { fflush(stdout); }
#define PREDICT_EVERY 1
#endif

static int run(void)
{
	uint32_t nnz, k, row = 0;
	float d[NUM_DECISIONS];
	double pred;
	for (; get(&nnz, 4); row++) {
		if (nnz > NUM_FEATURES || (nnz > 0 && (!get(idx, 4 * nnz) || !get(val, 4 * nnz))))
			return 1;
		for (k = 0; k < NUM_FEATURES; k++)
			x[k] = 0;
		for (k = 0; k < nnz; k++)
			if (idx[k] < NUM_FEATURES)
				x[idx[k]] = val[k];
		pred = DECISION(x, d);
		if (row % PREDICT_EVERY == 0 && PREDICT(x) != pred) {
#ifndef MCU
			fprintf(stderr, "row %lu: predict %.17g, decision %.17g\n", (unsigned long)row, PREDICT(x), pred);
#endif
			return 2;
		}
		put(&pred, sizeof pred);
		put(d, sizeof d);
	}
	flush();
	return 0;
}

#ifdef MCU
/* Reset: enable the FPU when there is one, run, and stop qemu with the result. */
static void reset(void)
{
#ifdef __ARM_FP
	*(volatile uint32_t *)0xE000ED88u |= 0xFu << 20; /* CPACR: CP10, CP11 full access */
	__asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
	in_fd = open_file("rows.bin", 1);  /* "rb" */
	out_fd = open_file("out.bin", 5);  /* "wb" */
	stop(in_fd == (uintptr_t)-1 || out_fd == (uintptr_t)-1 || run() != 0 ? STOPPED_ERROR : STOPPED_EXIT);
}

static void fault(void) { stop(STOPPED_ERROR); }

typedef void (*handler)(void);
/* The vector table: the initial stack pointer, reset, the faults. */
__attribute__((section(".vectors"), used)) static const handler vectors[16] = {
	(handler)0x20100000u, reset, fault, fault, fault, fault, fault, 0, 0, 0, 0, fault, fault, 0, fault, fault,
};
#else
int main(void) { return run(); }
#endif
