//go:build unix

package replay

import "syscall"

// readSmall appends the content of the small file p to buf with four
// system calls (open, read, read to the end, close), where os.ReadFile
// makes six (it stats the file twice, once to set up the poller): every
// request reads the commit files of every archive, and os.ReadFile was
// a fifth of the CPU of a cached id_ fetch.
func readSmall(p string, buf []byte) ([]byte, error) {
	var fd int
	var err error
	for {
		if fd, err = syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC, 0); err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return nil, err
		case n == 0:
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
