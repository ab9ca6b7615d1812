module example.com/receiptq-example

go 1.19
