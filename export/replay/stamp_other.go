//go:build !unix

package replay

import "os"

// readSmall appends the content of the small file p to buf.
func readSmall(p string, buf []byte) ([]byte, error) {
	c, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return append(buf, c...), nil
}
