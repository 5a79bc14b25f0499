# Rewrites `from formats import x_pb2` in a generated _pb2 module to the
# package path `from sluice.formats import x_pb2`.
file(READ ${FILE} text)
string(REPLACE "\nfrom formats import " "\nfrom sluice.formats import " text "${text}")
file(WRITE ${FILE} "${text}")
