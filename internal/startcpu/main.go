// Command startcpu measures the start-up CPU of blockwarc binaries: it
// runs `BINARY version` N times for each binary given, alternating them
// so that a load on the machine falls on all alike, and prints each
// one's CPU per invocation (user+sys, from the child's rusage, which
// Linux accounts to the nanosecond) and, for two binaries, the ratio of
// the second's mean to the first's.
//
//	go build -o /tmp/old ./cmd/blockwarc   # on the old commit
//	go build -o /tmp/new ./cmd/blockwarc   # on the new one
//	go run ./internal/startcpu -n 200 /tmp/old /tmp/new
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 200, "invocations of each binary")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: startcpu [-n N] BINARY...")
		flag.PrintDefaults()
	}
	flag.Parse()
	bins := flag.Args()
	if len(bins) == 0 || *n < 1 {
		flag.Usage()
		os.Exit(2)
	}
	cpu := make([][]time.Duration, len(bins))
	for range *n {
		for j, b := range bins {
			cmd := exec.Command(b, "version")
			if err := cmd.Run(); err != nil {
				fmt.Fprintf(os.Stderr, "startcpu: %s version: %v\n", b, err)
				os.Exit(1)
			}
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			cpu[j] = append(cpu[j], time.Duration(ru.Utime.Nano()+ru.Stime.Nano()))
		}
	}
	means := make([]float64, len(bins))
	for j, b := range bins {
		s := slices.Clone(cpu[j])
		slices.Sort(s)
		var sum time.Duration
		for _, d := range s {
			sum += d
		}
		means[j] = float64(sum) / float64(len(s)) / 1e6
		fmt.Printf("%s: mean %.2f ms, median %.2f ms, p90 %.2f ms of CPU per invocation (n=%d)\n",
			b, means[j], float64(s[len(s)/2])/1e6, float64(s[len(s)*9/10])/1e6, len(s))
	}
	if len(bins) == 2 {
		fmt.Printf("ratio %.3f (second / first)\n", means[1]/means[0])
	}
}
