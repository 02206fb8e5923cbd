package cropsv1

const golden = "contacts-and-crops-v1.jsonl"
