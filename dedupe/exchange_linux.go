package dedupe

import "golang.org/x/sys/unix"

// exchange swaps the directories a and b in one rename (renameat2
// RENAME_EXCHANGE): each path names one whole archive at every instant,
// which removing one and renaming the other into its place would not.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
