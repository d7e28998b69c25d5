package partition

// MainText returns the title and content blocks' text in document order.
// Placeholder until the annotation code lands.
func MainText(res *Result) string { return "" }
