package main

import (
	"context"
	"fmt"
	"io"
)

// runIndex is replaced by the index command (issue 2).
func runIndex(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "blockwarc index: not built yet")
	return exitFailure
}
