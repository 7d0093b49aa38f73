# syntax=docker/dockerfile:1.4
ARG LR=0.1
FROM scratch
ENV NAME=trainer
RUN <<EOF
set -e
apt-get update
pip install -r requirements.txt
EOF
RUN <<-EOT bash
	echo tab-stripped
	EOT
RUN python3 <<PY
print("hi")
PY
COPY <<EOF /app/config.yaml
lr: ${LR}
name: "$NAME" '${NAME:-x}' \$HOME
EOF
COPY --chmod=0755 <<-"EOT" /etc/motd
	$NOT_EXPANDED
EOT
ADD <<one.txt ctx.txt <<two.txt /dst/
1
one.txt
2
two.txt
RUN <<A cat > /a && <<B cat > /b
a
A
b
B
RUN cat <<'X' | tee /x
#!/bin/sh
X
USER nobody
