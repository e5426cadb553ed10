Network 16_P2_2048 {
Layer L16 {
Type: CONV
Dimensions { K: 512, C: 512, Y: 512, X: 1, R: 1, S: 1 }
Dataflow {
TemporalMap(172,172) K;
TemporalMap(1,1) X';
TemporalMap(1,1) R;
TemporalMap(1,1) S;
SpatialMap(1,1) C;
TemporalMap(142,142) Y';
Cluster(43,P);
TemporalMap(1,1) R;
TemporalMap(1,1) S;
TemporalMap(1,1) C;
TemporalMap(122,122) Y';
TemporalMap(1,1) X';
SpatialMap(1,1) K;
}
}
}
