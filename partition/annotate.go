package partition

// annotate fills Text, Features, Topic and Label of every block of res at
// every level. It renders the document once (buildIndex) and then maps
// each block to a slice of that rendering, so its cost is one walk of the
// tree plus, per block, work proportional to the block's text.
func annotate(res *Result, opts Options) {
	x := buildIndex(res, opts)
	t := newTopicer(x, res, opts)
	var visit func(b *Block)
	visit = func(b *Block) {
		s := x.blockSpan(b)
		b.Text = x.spanText(s)
		b.Features = x.features(s, b.Text, b.Start, b.End)
		var body float64
		if b.Node != nil {
			body = res.StyleOf(b.Node).FontSize
		}
		b.Topic = t.topic(s, body)
		b.Label = labelBlock(b, x, s)
		for _, c := range b.Children {
			visit(c)
		}
	}
	for _, b := range res.Blocks {
		visit(b)
	}
	for _, b := range res.Leaves {
		if b.Label == "" { // a leaf not reachable from res.Blocks
			visit(b)
		}
	}
}
