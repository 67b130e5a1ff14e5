// The board check's calls into the Swift runtime, made from C: Swift's compiler declares the runtime's entry
// points with what their contract promises (swift_bridgeObjectRetain returns its argument) and would use the
// argument in place of the result, so a broken runtime would pass unseen. gcc knows no such promise and
// hands back what the runtime really returned.
void *swift_bridgeObjectRetain(void *bridge);
void swift_bridgeObjectRelease(void *bridge);

void *board_bridge_object_retain(void *bridge) { return swift_bridgeObjectRetain(bridge); }
void board_bridge_object_release(void *bridge) { swift_bridgeObjectRelease(bridge); }
