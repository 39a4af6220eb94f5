module handoff/plugins/go

go 1.21
