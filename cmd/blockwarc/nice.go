package main

import (
	"fmt"
	"io"
)

// defaultNice is the nice value ingest, compact, prove and upgrade run at: they are
// batch work of hours that takes every core it is given, and beside them
// 'blockwarc serve' answered 1 fetch in 100 only after 18-29 ms at
// equal priority against 7-12 ms with the ingest niced (make
// bench-serve). A nice value costs nothing while the cores are idle.
const defaultNice = 10

const niceUsage = "run at nice value `N` (Linux; 0-19, higher yields the cores sooner to other work such as 'blockwarc serve'; 0 keeps the priority it was started with; never lowered below the one it was started with, e.g. under nice -n 19)"

// applyNice is lowerPriority; the tests, which run ingest in their own
// process, keep their priority (TestNice runs a process of its own).
var applyNice = lowerPriority

// setNice applies -nice; false after an error it printed.
func setNice(cmd string, n int, stderr io.Writer) bool {
	if n < 0 || n > 19 {
		fmt.Fprintf(stderr, "blockwarc %s: -nice must be 0 to 19\n", cmd)
		return false
	}
	if err := applyNice(n); err != nil {
		// Priority is a courtesy to other work, not a reason to stop.
		fmt.Fprintf(stderr, "blockwarc %s: warning: cannot set nice value %d: %v\n", cmd, n, err)
	}
	return true
}
