module blockwarc

go 1.26.8

require (
	github.com/andybalholm/brotli v1.2.8 // indirect
	github.com/apache/arrow/go/v17 v17.0.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/kljensen/snowball v0.10.0 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/schollz/progressbar/v3 v3.19.1 // indirect
	github.com/slyrz/warc v0.0.0-20150806225202-a50edd19b690 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/term v0.47.0 // indirect
)
