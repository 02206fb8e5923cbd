package coordinatesv1

const golden = "contacts-and-coordinates-v1.jsonl"
