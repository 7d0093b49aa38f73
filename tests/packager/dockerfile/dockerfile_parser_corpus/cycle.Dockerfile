FROM a AS b
COPY --from=c x y
FROM b AS c
COPY --from=b x y
ENV PATH /x:$PATH
WORKDIR ${A:+$A}${B-"q"}
