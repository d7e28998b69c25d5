package partition

// Layout is the document with every kept block replaced by a placeholder.
// Placeholder type until the layout code lands.
type Layout struct {
	Gaps [][]byte // len(Leaves)+1 byte runs between the kept blocks
}
