//go:build !linux

package dedupe

import "errors"

// exchange needs an atomic swap of two directories, which this system
// does not offer through the Go runtime: upgrade refuses rather than
// leave a moment when the archive's path names nothing.
func exchange(a, b string) error {
	return errors.New("this system has no atomic exchange of two directories (Linux renameat2): compact the archive into a new one instead")
}
