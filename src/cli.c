/* cli.c -- STUB, being written. */
#include <stdio.h>
int main(void) { puts("ricochet: not yet"); return 0; }
