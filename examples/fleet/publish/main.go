// Command publish sends batch files to a JetStream stream, one message a
// file, as a producer of a fleet does (examples/fleet/README.md): a CSV
// file (*.csv) carries the Svmgo-Format header, every other file is sent
// as LIBSVM text. It prints each message's stream sequence.
//
//	go run ./examples/fleet/publish [-nats URL] [-subject S] FILE...
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func main() {
	url := flag.String("nats", nats.DefaultURL, "NATS server URL")
	subject := flag.String("subject", "batches.in", "subject of the stream svmgo watch reads")
	flag.Parse()
	nc, err := nats.Connect(*url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "publish:", err)
		os.Exit(1)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		fmt.Fprintln(os.Stderr, "publish:", err)
		os.Exit(1)
	}
	for _, path := range flag.Args() {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "publish:", err)
			os.Exit(1)
		}
		msg := &nats.Msg{Subject: *subject, Data: data, Header: nats.Header{}}
		if strings.EqualFold(filepath.Ext(path), ".csv") {
			msg.Header.Set("Svmgo-Format", "csv")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ack, err := js.PublishMsg(ctx, msg)
		cancel()
		if err != nil {
			fmt.Fprintln(os.Stderr, "publish:", path, err)
			os.Exit(1)
		}
		fmt.Printf("%s: stream %s sequence %d\n", path, ack.Stream, ack.Sequence)
	}
}
