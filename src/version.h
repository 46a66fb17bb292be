/* version.h: the program's version, shared by --version, the manifest and the man page check. */
#ifndef RR_VERSION_H
#define RR_VERSION_H
#define RR_VERSION "0.1.0"
#endif
