// bench/profile/pingpong.c: the cost of one hand-off between two threads on this machine.
//   gcc -O2 -pthread -o /tmp/pingpong bench/profile/pingpong.c && /tmp/pingpong && taskset -c 0 /tmp/pingpong
// Two threads hand a token back and forth through pipes (each blocks in read): µs per one-way hand-off.
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <time.h>
static int a[2], b[2];
static const int N = 20000;
static void *peer(void *x) { char c; for (int i = 0; i < N; i++) { read(a[0], &c, 1); write(b[1], &c, 1); } return 0; }
int main(void) {
  pipe(a); pipe(b); pthread_t t; pthread_create(&t, 0, peer, 0);
  struct timespec s, e; char c = 'x';
  clock_gettime(CLOCK_MONOTONIC, &s);
  for (int i = 0; i < N; i++) { write(a[1], &c, 1); read(b[0], &c, 1); }
  clock_gettime(CLOCK_MONOTONIC, &e);
  double us = ((e.tv_sec - s.tv_sec) * 1e9 + (e.tv_nsec - s.tv_nsec)) / 1e3 / N / 2;
  printf("one-way thread hand-off through a pipe: %.1f us\n", us);
  return 0;
}
