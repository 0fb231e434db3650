#include "tap.h"
int main(void)
{
	tap_ok(1, "placeholder");
	return tap_done();
}
