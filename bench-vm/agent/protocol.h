/* SPDX-License-Identifier: GPL-2.0 */
/*
 * protocol.h - what the guest agent (agent.c) sends to the host and
 * bench-vm-collect (bench-vm/collect.c, the one reader) reads: one
 * definition of the port and of the lines for both.
 *
 * The port is a virtio-serial port of that name (bench-vm/argv.sh gives
 * QEMU the same name: a shell file cannot include this one).  Every line
 * is tab-separated: its type, then key=value fields:
 *   hello  kernel= boot_us= ns0_size= ns1_size= [ns2_size=]
 *   cpu    vendor= family= model= stepping= model_name= flags=
 *   vuln   name= state=        a file of /sys/devices/system/cpu/
 *                              vulnerabilities: the mitigations the
 *                              guest kernel applies on this CPU
 *   step   name=               what the agent starts now
 *   sample driver= case=first|rebind index= pages= memmap_ms= lines=
 *          bind_us= unbind_us= boot_us= window=
 *          (driver: nd_pmem, dax_pmem, or dax_pmem_mem for namespace2.0)
 *   synthetic kind=mov|movnti|movntdq|rep_movsb bytes= window=   (synthetic=N)
 *   check  device= what=odirect|mmap|mmap-mem bytes= result=ok
 *   pages  driver= line=      bench_vm_pages.ko's output (pages=1); driver
 *                             hmm_private, hmm_coherent: test_hmm.ko's
 *                             chunks (hmm=1)
 *   hmm    private= coherent= pages= lines= memmap_ms= load_us= window=
 *          test_hmm.ko loaded (hmm=1): its chunks of each pgmap type, the
 *          memmap lines of its load and their pages
 *   error  step= msg=
 *   done
 * A line of any other type is skipped by the reader.
 */
#ifndef BENCH_VM_AGENT_PROTOCOL_H
#define BENCH_VM_AGENT_PROTOCOL_H

#define AGENT_PORT "bench-vm.agent"

#define AGENT_HELLO "hello"
#define AGENT_CPU "cpu"
#define AGENT_VULN "vuln"
#define AGENT_STEP "step"
#define AGENT_SAMPLE "sample"
#define AGENT_SYNTHETIC "synthetic"
#define AGENT_CHECK "check"
#define AGENT_PAGES "pages"
#define AGENT_HMM "hmm"
#define AGENT_ERROR "error"
#define AGENT_DONE "done"

#endif /* BENCH_VM_AGENT_PROTOCOL_H */
