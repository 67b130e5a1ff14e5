// Struct layouts as the target's gcc computed them (Tools/board/c_layouts.c), entry i of count.
int board_c_layout_count(void);
const char *board_c_layout_name(int i);
unsigned long board_c_layout_value(int i);
