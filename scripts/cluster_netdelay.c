// Constant per-packet delay for `scripts/cluster` on kernels without sch_netem
// (CONFIG_NET_SCH_NETEM unset, as on the Firecracker kernel this project's machines run).
// nftables queues every IPv4 packet of a host namespace's output and input hooks to NFQUEUE
// `queue`; this program holds each packet for `delay_us` microseconds and then accepts it, in
// arrival order (the delay is constant, so a FIFO is a timer queue). Packets are never copied to
// user space (NFQNL_COPY_META) and GSO packets stay whole (NFQA_CFG_F_GSO), so the cost is one
// netlink message per packet and verdict. A full queue accepts instead of dropping
// (NFQA_CFG_F_FAIL_OPEN): the delay is then missed for that packet, the connection survives.
// The delay can be changed while running: send SIGHUP after writing the new value in
// microseconds into the file named by the third argument.
// Usage: cluster_netdelay QUEUE DELAY_US [DELAY_FILE]     (runs until SIGTERM; needs CAP_NET_ADMIN)
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define kMaxHeld (1 << 16)

static uint32_t held_id[kMaxHeld];
static int64_t held_due_ns[kMaxHeld];
static size_t head = 0, count = 0;
static int64_t delay_ns = 0;
static volatile sig_atomic_t reload = 0, stop = 0;

static int64_t NowNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int OnPacket(struct nfq_q_handle* qh, struct nfgenmsg* msg, struct nfq_data* nfa,
                    void* data) {
  (void)msg;
  (void)data;
  struct nfqnl_msg_packet_hdr* ph = nfq_get_msg_packet_hdr(nfa);
  if (ph == NULL) return 0;
  uint32_t id = ntohl(ph->packet_id);
  if (count == kMaxHeld || delay_ns <= 0) return nfq_set_verdict(qh, id, NF_ACCEPT, 0, NULL);
  size_t slot = (head + count) % kMaxHeld;
  held_id[slot] = id;
  held_due_ns[slot] = NowNs() + delay_ns;
  ++count;
  return 0;
}

static void ReleaseDue(struct nfq_q_handle* qh) {
  int64_t now = NowNs();
  while (count > 0 && held_due_ns[head] <= now) {
    nfq_set_verdict(qh, held_id[head], NF_ACCEPT, 0, NULL);
    head = (head + 1) % kMaxHeld;
    --count;
  }
}

static void OnSignal(int sig) {
  if (sig == SIGHUP) reload = 1; else stop = 1;
}

static void ReadDelayFile(const char* path) {
  FILE* f = fopen(path, "r");
  long long us = 0;
  if (f != NULL && fscanf(f, "%lld", &us) == 1 && us >= 0) delay_ns = us * 1000;
  else fprintf(stderr, "cluster_netdelay: cannot read a delay in us from %s\n", path);
  if (f != NULL) fclose(f);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s QUEUE DELAY_US [DELAY_FILE]\n", argv[0]);
    return 2;
  }
  int queue = atoi(argv[1]);
  delay_ns = atoll(argv[2]) * 1000;
  // The delay emulates a wire, which no CPU contention slows down: under the load of a shared
  // 2-core machine a normally scheduled delayer waits milliseconds for a CPU and caps TCP at
  // ~70% of a 1 Gbit/s link; with SCHED_FIFO it reaches the link's goodput. It sleeps in ppoll
  // between packets, so it takes little CPU; without the privilege it runs normally.
  struct sched_param sp = {.sched_priority = 10};
  if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) perror("cluster_netdelay: SCHED_FIFO");
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);  // wake at the due time, not up to 50 us later
  signal(SIGHUP, OnSignal);
  signal(SIGTERM, OnSignal);
  signal(SIGINT, OnSignal);
  struct nfq_handle* h = nfq_open();
  if (h == NULL) { perror("cluster_netdelay: nfq_open"); return 1; }
  struct nfq_q_handle* qh = nfq_create_queue(h, queue, &OnPacket, NULL);
  if (qh == NULL) { perror("cluster_netdelay: nfq_create_queue"); return 1; }
  if (nfq_set_mode(qh, NFQNL_COPY_META, 0) < 0) { perror("nfq_set_mode"); return 1; }
  nfq_set_queue_maxlen(qh, kMaxHeld);
  uint32_t flags = NFQA_CFG_F_FAIL_OPEN | NFQA_CFG_F_GSO;
  nfq_set_queue_flags(qh, flags, flags);
  int fd = nfq_fd(h);
  nfnl_rcvbufsiz(nfq_nfnlh(h), 8 << 20);
  char buf[65536] __attribute__((aligned));
  while (!stop) {
    if (reload) {
      reload = 0;
      if (argc > 3) ReadDelayFile(argv[3]);
    }
    // ppoll's nanosecond timeout (an hrtimer) wakes us when the oldest packet is due.
    struct timespec wait = {0, 0};
    struct timespec* timeout = NULL;
    if (count > 0) {
      int64_t wait_ns = held_due_ns[head] - NowNs();
      if (wait_ns > 0) {
        wait.tv_sec = wait_ns / 1000000000LL;
        wait.tv_nsec = wait_ns % 1000000000LL;
      }
      timeout = &wait;
    }
    struct pollfd pfd = {fd, POLLIN, 0};
    int r = ppoll(&pfd, 1, timeout, NULL);
    if (r > 0) {
      for (;;) {
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n <= 0) break;
        nfq_handle_packet(h, buf, (int)n);
      }
    } else if (r < 0 && errno != EINTR) {
      perror("cluster_netdelay: poll");
      break;
    }
    ReleaseDue(qh);
  }
  // Release everything still held before the queue goes away.
  while (count > 0) {
    nfq_set_verdict(qh, held_id[head], NF_ACCEPT, 0, NULL);
    head = (head + 1) % kMaxHeld;
    --count;
  }
  nfq_destroy_queue(qh);
  nfq_close(h);
  return 0;
}
