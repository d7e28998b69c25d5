package columnar

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps the directories a and b in one rename (renameat2 with
// RENAME_EXCHANGE); errNoExchange where the kernel or file system lacks it.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) {
		return errNoExchange
	}
	return err
}
