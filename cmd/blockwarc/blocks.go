package main

import (
	"context"
	"fmt"
	"io"
)

// runBlocks is replaced by the blocks command (issue 3).
func runBlocks(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "blockwarc blocks: not built yet")
	return exitFailure
}
