Network 06_P2 {
Layer L06 {
Type: CONV
Dimensions { K: 384, C: 256, Y: 15, X: 15, R: 3, S: 3 }
Dataflow {
TemporalMap(3,3) S;
TemporalMap(43,43) C;
SpatialMap(1,1) K;
TemporalMap(15,15) Y';
TemporalMap(3,3) R;
TemporalMap(14,14) X';
Cluster(15,P);
SpatialMap(1,1) C;
TemporalMap(3,3) R;
TemporalMap(3,3) S;
TemporalMap(2,2) X';
TemporalMap(1,1) Y';
TemporalMap(1,1) K;
}
}
}
