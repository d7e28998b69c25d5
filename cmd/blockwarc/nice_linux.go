package main

import (
	"os"
	"strconv"
	"syscall"
)

// lowerPriority raises the process's nice value to at least n (never
// lowers it: a user who started blockwarc under `nice -n 19` keeps 19).
// On Linux the nice value belongs to each thread and a new thread copies
// its creator's, so every thread that exists now is set, twice over to
// catch one started meanwhile; the Go runtime then only ever clones
// threads that already have it.
func lowerPriority(n int) error {
	if n <= 0 {
		return nil
	}
	var last error
	for range 2 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			// The raw getpriority returns 20 - nice.
			cur, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
			if err != nil {
				continue // the thread ended
			}
			if 20-cur >= n {
				continue
			}
			if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, n); err != nil && err != syscall.ESRCH {
				last = err
			}
		}
	}
	return last
}
