module github.com/blockwarc/blockwarc

go 1.26.8

require (
	github.com/DataDog/zstd v1.5.7
	github.com/PlakarKorp/go-cdc-chunkers v1.1.0
	github.com/abadojack/whatlanggo v1.0.1
	github.com/andybalholm/brotli v1.2.8
	github.com/apache/arrow-go/v18 v18.8.0
	github.com/klauspost/compress v1.20.3
	github.com/klauspost/reedsolomon v1.14.2
	github.com/kljensen/snowball v0.10.0
	github.com/pierrec/lz4/v4 v4.1.33
	github.com/schollz/progressbar/v3 v3.19.1
	github.com/slyrz/warc v0.0.0-20150806225202-a50edd19b690
	github.com/zeebo/xxh3 v1.1.0
	golang.org/x/net v0.62.0
	golang.org/x/sync v0.24.0
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.47.0
	golang.org/x/text v0.43.0
)

require (
	github.com/apache/thrift v0.24.0 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/goccy/go-json v0.10.6 // indirect
	github.com/google/flatbuffers v25.12.19+incompatible // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/klauspost/cpuid/v2 v2.4.0 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/zeebo/blake3 v0.2.4 // indirect
	golang.org/x/exp v0.0.0-20260112195511-716be5621a96 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260526163538-3dc84a4a5aaa // indirect
	google.golang.org/grpc v1.83.2 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
