/* The release, printed by -V and kept with every run. */
#ifndef THRASHTOP_VERSION_H
#define THRASHTOP_VERSION_H

#define THRASHTOP_VERSION "0.1.0"

#endif
